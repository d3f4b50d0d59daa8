import { describe, expect, it } from 'vitest';
import { partitionForKey } from '../../src/produce/partition-for-key.ts';

describe('partitionForKey', () => {
  it('spreads keys over every partition and stays within range', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const p = partitionForKey('t', `evt_${i}`, 6);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(6);
      seen.add(p);
    }
    expect(seen.size).toBe(6);
  });

  it('is stable for the same key', () => {
    expect(partitionForKey('x', 'evt_1', 12)).toBe(partitionForKey('y', 'evt_1', 12));
  });

  it.each([0, -1, 1.5])('refuses %d partitions', (n) => {
    expect(() => partitionForKey('t', 'k', n)).toThrow(RangeError);
  });
});
