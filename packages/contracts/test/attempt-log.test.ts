import { describe, expect, it } from 'vitest';
import { AttemptLogEntry } from '../src/attempt-log.ts';

const BASE = {
  eventId: 'evt_1',
  subscriber: 'billing',
  step: 'delivered',
  attempt: 1,
  at: '2026-12-03T12:00:00.000Z',
  source: { topic: 'events', partition: 0, offset: '5' },
};

describe('AttemptLogEntry: the tenant', () => {
  it("keeps a tenant's event's tenant, and reads entries without one as before", () => {
    expect(AttemptLogEntry.parse({ ...BASE, tenant: 'acme' }).tenant).toBe('acme');
    expect('tenant' in AttemptLogEntry.parse(BASE)).toBe(false);
    expect(AttemptLogEntry.safeParse({ ...BASE, tenant: 'not a tenant' }).success).toBe(false);
  });

  // The schema is not strict: were it, a reader from before tenants would lose every new entry.
  it('a reader of the schema before tenants (the same object without it) reads a new entry, dropping the tenant', () => {
    const before = AttemptLogEntry.omit({ tenant: true });
    const read = before.safeParse({ ...BASE, tenant: 'acme' });
    expect(read.success).toBe(true);
    expect(read.data).toEqual(BASE);
  });
});

describe("AttemptLogEntry: a rewind's mark", () => {
  const rewind = { at: '2026-12-03T11:00:00.000Z', by: 'alice' };

  it('keeps who rewound and when; refuses a mark without either', () => {
    expect(AttemptLogEntry.parse({ ...BASE, rewind }).rewind).toEqual(rewind);
    expect('rewind' in AttemptLogEntry.parse(BASE)).toBe(false);
    expect(AttemptLogEntry.safeParse({ ...BASE, rewind: { at: rewind.at } }).success).toBe(false);
    expect(AttemptLogEntry.safeParse({ ...BASE, rewind: { ...rewind, by: '' } }).success).toBe(false);
  });

  it('a reader from before the mark reads a new entry, dropping it', () => {
    const before = AttemptLogEntry.omit({ rewind: true });
    const read = before.safeParse({ ...BASE, rewind });
    expect(read.success).toBe(true);
    expect(read.data).toEqual(BASE);
  });
});
