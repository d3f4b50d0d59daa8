import { describe, expect, it } from 'vitest';
import { isTraceparent, newTraceparent } from '../src/traceparent.ts';

describe('traceparent', () => {
  it('generates valid, distinct, sampled W3C traceparents', () => {
    const a = newTraceparent();
    expect(isTraceparent(a)).toBe(true);
    expect(a).toMatch(/-01$/);
    expect(newTraceparent()).not.toBe(a);
  });

  it('stays valid and distinct across refills of its random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const value = newTraceparent();
      expect(isTraceparent(value)).toBe(true);
      seen.add(value.slice(3, 35));
      seen.add(value.slice(36, 52));
    }
    expect(seen.size).toBe(2000);
  });

  it.each([
    'garbage',
    '00-00000000000000000000000000000000-0123456789abcdef-01',
    '00-0123456789abcdef0123456789abcdef-0000000000000000-01',
    '00-0123456789ABCDEF0123456789abcdef-0123456789abcdef-01',
  ])('rejects %s', (value) => {
    expect(isTraceparent(value)).toBe(false);
  });
});
