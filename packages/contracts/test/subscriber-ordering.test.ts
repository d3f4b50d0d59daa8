import { describe, expect, it } from 'vitest';
import { parseSubscriberDefinition } from '../src/subscriber.ts';
import { fieldsNewerThan, recordVersionFor, SubscriberRecord } from '../src/subscriber-record.ts';

const parse = (extra: Record<string, unknown>) =>
  parseSubscriberDefinition({ name: 'shipments', url: 'https://ops.example/hooks', ...extra });

describe('strict ordering on a subscriber', () => {
  it('takes maxHoldMs only with "strict", bounded', () => {
    const strict = parse({ ordering: 'strict', maxHoldMs: 60_000 });
    expect(strict.ok && [strict.value.ordering, strict.value.maxHoldMs]).toEqual(['strict', 60_000]);
    const withKey = parse({ ordering: 'key', maxHoldMs: 60_000 });
    expect(withKey.ok).toBe(false);
    if (!withKey.ok) expect(withKey.error).toBe('maxHoldMs: only with "ordering": "strict"');
    for (const maxHoldMs of [999, 86_400_001, 1.5]) {
      const bad = parse({ ordering: 'strict', maxHoldMs });
      expect(bad.ok).toBe(false);
      if (!bad.ok) expect(bad.error).toMatch(/^maxHoldMs: /);
    }
  });

  it('is record version 7, by value: a definition ordered by key stays at the version it needed', () => {
    const strict = parse({ ordering: 'strict' });
    const byKey = parse({ ordering: 'key' });
    if (!strict.ok || !byKey.ok) throw new Error('valid definitions');
    expect(recordVersionFor(strict.value)).toBe(7);
    expect(fieldsNewerThan(strict.value, 6)).toEqual(['ordering']);
    expect(recordVersionFor(byKey.value)).toBe(2);
    expect(fieldsNewerThan(byKey.value, 6)).toEqual([]);
    const record = (version: number) =>
      SubscriberRecord.safeParse({
        version,
        definition: strict.value,
        state: { kind: 'active' },
        createdAt: '2026-12-04T10:00:00Z',
        updatedAt: '2026-12-04T10:00:00Z',
      }).success;
    expect(record(7)).toBe(true);
    expect(record(6)).toBe(false);
  });
});
