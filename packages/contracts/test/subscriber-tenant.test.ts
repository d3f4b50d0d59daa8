import { describe, expect, it } from 'vitest';
import { acceptsTenant, parseSubscriberDefinition, tenantOf } from '../src/subscriber.ts';
import {
  fieldsNewerThan,
  recordVersionFor,
  SUBSCRIBER_RECORD_VERSIONS,
  SubscriberRecord,
} from '../src/subscriber-record.ts';

const definition = (extra: Record<string, unknown> = {}) => {
  const parsed = parseSubscriberDefinition({
    name: 'acme-hooks',
    url: 'https://acme.example/hooks',
    ...extra,
  });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe('a tenant on a subscriber', () => {
  it('takes the characters of an event id, at most 100', () => {
    expect(definition({ tenant: 'acme:eu-1_x.y' }).tenant).toBe('acme:eu-1_x.y');
    expect(definition({ tenant: 'a'.repeat(100) }).tenant).toHaveLength(100);
    for (const bad of ['', 'a'.repeat(101), 'acme corp', 'acme/eu', 'ácme']) {
      const parsed = parseSubscriberDefinition({ name: 'x', url: 'https://x.example', tenant: bad });
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(/^tenant: /);
    }
  });

  it("receives only its tenant's events; without one, every event", () => {
    const acme = definition({ tenant: 'acme' });
    expect(acceptsTenant(acme, 'acme')).toBe(true);
    expect(acceptsTenant(acme, 'globex')).toBe(false);
    expect(acceptsTenant(acme, undefined)).toBe(false);
    expect(acceptsTenant(acme, '')).toBe(false);
    const ops = definition();
    for (const tenant of ['acme', 'globex', undefined]) expect(acceptsTenant(ops, tenant)).toBe(true);
  });

  it('reads the tenant from the ce_tenant header', () => {
    expect(tenantOf({ ce_tenant: 'acme', ce_type: 'a.b' })).toBe('acme');
    expect(tenantOf({ ce_type: 'a.b' })).toBeUndefined();
  });

  it('is a record version 4 field; a definition without it stays at the version it needed', () => {
    expect(SUBSCRIBER_RECORD_VERSIONS).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(recordVersionFor(definition({ tenant: 'acme' }))).toBe(4);
    expect(recordVersionFor(definition({ tenant: 'acme', required: true }))).toBe(4);
    expect(recordVersionFor(definition({ required: true }))).toBe(3);
    expect(recordVersionFor(definition())).toBe(2);
    expect(fieldsNewerThan(definition({ tenant: 'acme', required: true }), 3)).toEqual(['tenant']);
    expect(fieldsNewerThan(definition({ tenant: 'acme', required: true }), 2)).toEqual([
      'required',
      'tenant',
    ]);
  });

  it('a record below version 4 cannot hold a tenant', () => {
    const record = (version: number) =>
      SubscriberRecord.safeParse({
        version,
        definition: definition({ tenant: 'acme' }),
        state: { kind: 'active' },
        createdAt: '2026-12-03T10:00:00Z',
        updatedAt: '2026-12-03T10:00:00Z',
      }).success;
    expect(record(4)).toBe(true);
    expect(record(3)).toBe(false);
  });
});
