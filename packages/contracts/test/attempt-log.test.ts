import { describe, expect, it } from 'vitest';
import { AttemptLogEntry } from '../src/attempt-log.ts';
import {
  ATTEMPT_BATCH_MAX_ENTRIES,
  attemptEntriesOf,
  attemptRecordMayHold,
} from '../src/attempt-log-records.ts';

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

describe('attempt log records: a single entry or a batch', () => {
  const entry = (eventId: string) => ({ ...BASE, eventId });
  const bytes = (json: unknown) => Buffer.from(JSON.stringify(json));

  it('reads a record of one entry (every record before batches, and the replay tool’s) as before', () => {
    expect(attemptEntriesOf(bytes(entry('evt_1')))).toEqual({
      entries: [AttemptLogEntry.parse(entry('evt_1'))],
      invalid: 0,
    });
  });

  it('reads every entry of a batch, and a bad member costs only itself', () => {
    const read = attemptEntriesOf(bytes({ entries: [entry('evt_1'), { eventId: 'evt_2' }, entry('evt_3')] }));
    expect(read.entries.map((e) => e.eventId)).toEqual(['evt_1', 'evt_3']);
    expect(read.invalid).toBe(1);
    expect(read.why).toBeDefined();
  });

  it('refuses what is neither, without throwing: not JSON, no value, an empty or oversized batch', () => {
    expect(attemptEntriesOf(Buffer.from('{')).why).toBe('not JSON');
    expect(attemptEntriesOf(null).why).toBe('no value');
    expect(attemptEntriesOf(bytes({ entries: [] })).entries).toEqual([]);
    const tooMany = Array.from({ length: ATTEMPT_BATCH_MAX_ENTRIES + 1 }, (_, i) => entry(`evt_${i}`));
    expect(attemptEntriesOf(bytes({ entries: tooMany }))).toMatchObject({ entries: [], invalid: 1 });
  });

  it('tells cheaply which records may hold an event: its key, or its id inside a batch', () => {
    const batch = bytes({ entries: [entry('evt_1'), entry('evt_2')] });
    expect(attemptRecordMayHold({ key: 'evt_1', value: batch }, 'evt_2')).toBe(true);
    expect(attemptRecordMayHold({ key: 'evt_1', value: batch }, 'evt_9')).toBe(false);
    expect(attemptRecordMayHold({ key: 'evt_9', value: null }, 'evt_9')).toBe(true);
  });
});
