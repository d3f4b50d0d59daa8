import { describe, expect, it } from 'vitest';
import { parseSubscriberDefinition } from '../src/subscriber.ts';
import { fieldsNewerThan, recordVersionFor, SubscriberRecord } from '../src/subscriber-record.ts';

const parse = (extra: Record<string, unknown>) =>
  parseSubscriberDefinition({ name: 'enrollments', url: 'https://lms.example/hooks', ...extra });

describe('fairness on a subscriber', () => {
  it('takes "tenant" only, and only on a subscriber without a tenant', () => {
    const fair = parse({ fairness: 'tenant' });
    expect(fair.ok && fair.value.fairness).toBe('tenant');
    const other = parse({ fairness: 'key' });
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error).toMatch(/^fairness: /);
    const withTenant = parse({ fairness: 'tenant', tenant: 'school-a' });
    expect(withTenant.ok).toBe(false);
    if (!withTenant.ok) expect(withTenant.error).toMatch(/^fairness: only without "tenant"/);
  });

  it('is a record version 5 field, which a version 4 record cannot hold', () => {
    const fair = parse({ fairness: 'tenant', required: true });
    if (!fair.ok) throw new Error(fair.error);
    expect(recordVersionFor(fair.value)).toBe(5);
    expect(fieldsNewerThan(fair.value, 4)).toEqual(['fairness']);
    const record = (version: number) =>
      SubscriberRecord.safeParse({
        version,
        definition: fair.value,
        state: { kind: 'active' },
        createdAt: '2026-12-03T10:00:00Z',
        updatedAt: '2026-12-03T10:00:00Z',
      }).success;
    expect(record(5)).toBe(true);
    expect(record(4)).toBe(false);
  });
});
