import { type AttemptLogEntry, acceptsTenant } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import {
  attemptEntriesFor,
  latestStep,
  originFromEntries,
  resolveLedger,
  resolveLedgers,
  subscribersFromGroups,
  type TypeFilter,
} from '../src/ledger.ts';

const ORIGIN = { topic: 'events', partition: 2, offset: '100' };
const SOURCE = { topic: 'events', partition: 2, offset: '100' };

function step(over: Partial<AttemptLogEntry> & Pick<AttemptLogEntry, 'step' | 'at'>): AttemptLogEntry {
  return { eventId: 'evt_1', subscriber: 'billing', attempt: 1, origin: ORIGIN, source: SOURCE, ...over };
}

const committed = (offset: string | null) => new Map([[2, offset]]);

describe('resolveLedger', () => {
  it('delivered: when, which attempt, which status', () => {
    const entries = [
      step({
        step: 'retry-scheduled',
        at: '2026-05-01T10:00:00.000Z',
        tier: 1,
        dueAt: '2026-05-01T10:00:01.000Z',
      }),
      step({ step: 'delivered', at: '2026-05-01T10:00:01.200Z', attempt: 2, status: 204 }),
    ];
    expect(resolveLedger({ entries, origin: ORIGIN, committed: committed('101') })).toEqual({
      state: 'delivered',
      at: '2026-05-01T10:00:01.200Z',
      attempt: 2,
      status: 204,
    });
  });

  it("delivered again by a rewind: the latest step says which rewind (who, when); the first delivery's step did not", () => {
    const rewind = { at: '2026-05-02T09:00:00.000Z', by: 'alice' };
    const first = step({ step: 'delivered', at: '2026-05-01T10:00:00.000Z', status: 204 });
    const again = step({ step: 'delivered', at: '2026-05-02T09:00:01.000Z', status: 200, rewind });
    expect(resolveLedger({ entries: [first, again], origin: ORIGIN, committed: committed('101') })).toEqual({
      state: 'delivered',
      at: '2026-05-02T09:00:01.000Z',
      attempt: 1,
      status: 200,
      rewind,
    });
    expect(
      resolveLedger({ entries: [first], origin: ORIGIN, committed: committed('101') }),
    ).not.toHaveProperty('rewind');
    // Any step of the re-delivered record says it.
    const retry = step({ step: 'retry-scheduled', at: '2026-05-02T09:00:01.000Z', tier: 1, rewind });
    const dead = step({
      step: 'dead-lettered',
      at: '2026-05-02T09:00:01.000Z',
      deadLetterReason: 'terminal',
      rewind,
    });
    const filtered = step({ step: 'filtered', at: '2026-05-02T09:00:01.000Z', attempt: 0, rewind });
    for (const e of [retry, dead, filtered])
      expect(resolveLedger({ entries: [e], origin: ORIGIN, committed: committed('101') })).toMatchObject({
        rewind,
      });
  });

  it('retrying: the tier and due time of the latest scheduling, even before the offset is committed', () => {
    const entries = [
      step({
        step: 'retry-scheduled',
        at: '2026-05-01T10:00:00.000Z',
        tier: 1,
        dueAt: '2026-05-01T10:00:01.000Z',
      }),
      step({
        step: 'retry-scheduled',
        at: '2026-05-01T10:00:01.100Z',
        attempt: 2,
        tier: 2,
        dueAt: '2026-05-01T10:00:11.100Z',
      }),
    ];
    expect(resolveLedger({ entries, origin: ORIGIN, committed: committed('100') })).toEqual({
      state: 'retrying',
      tier: 2,
      dueAt: '2026-05-01T10:00:11.100Z',
      attempt: 2,
      replayed: false,
    });
  });

  it('dead-lettered: the reason, last attempt and status', () => {
    const entries = [
      step({
        step: 'dead-lettered',
        at: '2026-05-01T10:00:00.000Z',
        deadLetterReason: 'terminal',
        status: 404,
      }),
    ];
    expect(resolveLedger({ entries, origin: ORIGIN, committed: committed('101') })).toEqual({
      state: 'dead-lettered',
      at: '2026-05-01T10:00:00.000Z',
      reason: 'terminal',
      attempt: 1,
      status: 404,
    });
  });

  it('replayed after dead-lettering: waiting in tier 1 again, marked as a replay', () => {
    const entries = [
      step({
        step: 'dead-lettered',
        at: '2026-05-01T10:00:00.000Z',
        deadLetterReason: 'terminal',
        status: 404,
      }),
      step({
        step: 'retry-scheduled',
        at: '2026-05-02T08:00:00.000Z',
        attempt: 0,
        outcome: 'replayed',
        tier: 1,
        dueAt: '2026-05-02T08:00:00.000Z',
        operator: 'ops-alice',
      }),
    ];
    expect(resolveLedger({ entries, origin: ORIGIN, committed: committed('101') })).toMatchObject({
      state: 'retrying',
      tier: 1,
      attempt: 0,
      replayed: true,
      replayedBy: 'ops-alice',
    });
  });

  it('filtered out', () => {
    const entries = [step({ step: 'filtered', at: '2026-05-01T10:00:00.000Z', attempt: 0 })];
    expect(resolveLedger({ entries, origin: ORIGIN, committed: committed('101') })).toEqual({
      state: 'filtered',
      at: '2026-05-01T10:00:00.000Z',
    });
  });

  it('not reached: its offset is at the committed offset', () => {
    expect(resolveLedger({ entries: [], origin: ORIGIN, committed: committed('100') })).toEqual({
      state: 'not-reached',
      committed: '100',
    });
  });

  it('not reached: above the committed offset, or the group has no commit on that partition, or no ledger at all', () => {
    expect(resolveLedger({ entries: [], origin: ORIGIN, committed: committed('7') }).state).toBe(
      'not-reached',
    );
    expect(resolveLedger({ entries: [], origin: ORIGIN, committed: committed(null) })).toEqual({
      state: 'not-reached',
      committed: null,
    });
    expect(resolveLedger({ entries: [], origin: ORIGIN, committed: new Map([[0, '500']]) }).state).toBe(
      'not-reached',
    );
    expect(resolveLedger({ entries: [], origin: ORIGIN, committed: null }).state).toBe('not-reached');
  });

  it('passed without a record: below the committed offset with no attempt logged', () => {
    expect(resolveLedger({ entries: [], origin: ORIGIN, committed: committed('101') })).toEqual({
      state: 'passed-without-record',
      committed: '101',
    });
  });

  it('compares offsets as integers, not strings', () => {
    const origin = { topic: 'events', partition: 2, offset: '9' };
    expect(resolveLedger({ entries: [], origin, committed: committed('10') }).state).toBe(
      'passed-without-record',
    );
  });

  it('unknown: no attempt and no location', () => {
    expect(resolveLedger({ entries: [], origin: null, committed: committed('101') })).toEqual({
      state: 'unknown',
    });
  });
});

describe('resolveLedger: filtered without an attempt log step, judged from the definition', () => {
  const TYPE = 'shipment.updated';
  const only =
    (...types: string[]) =>
    (type: string) =>
      types.includes(type);
  const all = () => true;
  const filtered = { state: 'filtered', at: null, eventType: TYPE, committed: '101' };
  const passed = { state: 'passed-without-record', committed: '101' };

  it.each([
    { why: 'past it, its eventTypes do not take the type', accepts: only('key.revoked'), expected: filtered },
    { why: 'past it, its eventTypes take the type', accepts: only('key.revoked', TYPE), expected: passed },
    { why: "past it, '*' takes every type", accepts: all, expected: passed },
    { why: 'past it, not in the catalog', accepts: null, expected: passed },
    { why: 'past it, no filter given', accepts: undefined, expected: passed },
    { why: 'past it, the type is unknown', eventType: null, accepts: only('key.revoked'), expected: passed },
    {
      why: 'at the committed offset: not reached, whatever the type',
      committed: '100',
      accepts: only('key.revoked'),
      expected: { state: 'not-reached', committed: '100' },
    },
    {
      why: 'no commit on its partition: not reached',
      committed: null,
      accepts: only('key.revoked'),
      expected: { state: 'not-reached', committed: null },
    },
    {
      why: 'no location: unknown',
      origin: null,
      accepts: only('key.revoked'),
      expected: { state: 'unknown' },
    },
    {
      why: 'a logged step wins over the definition (which may have changed since)',
      entries: [step({ step: 'delivered', at: '2026-05-01T10:00:00.000Z', status: 200 })],
      accepts: only('key.revoked'),
      expected: { state: 'delivered', at: '2026-05-01T10:00:00.000Z', attempt: 1, status: 200 },
    },
    {
      why: 'a logged filtered step keeps its time',
      entries: [step({ step: 'filtered', at: '2026-05-01T10:00:00.000Z', attempt: 0 })],
      accepts: only('key.revoked'),
      expected: { state: 'filtered', at: '2026-05-01T10:00:00.000Z' },
    },
  ])('$why', (c) => {
    const state = resolveLedger({
      entries: c.entries ?? [],
      origin: c.origin === undefined ? ORIGIN : c.origin,
      committed: committed(c.committed === undefined ? '101' : c.committed),
      eventType: c.eventType === undefined ? TYPE : c.eventType,
      accepts: c.accepts,
    });
    expect(state).toEqual(c.expected);
  });
});

describe('resolveLedger: filtered by tenant without an attempt log step, judged from the definition', () => {
  // The one rule the pusher applies (acceptsTenant), for a subscriber of acme.
  const acme = (tenant: string | undefined) => acceptsTenant({ tenant: 'acme' }, tenant);
  const judge = (eventTenant: string | null | undefined, c: { committed?: string } = {}) =>
    resolveLedger({
      entries: [],
      origin: ORIGIN,
      committed: committed(c.committed ?? '101'),
      eventType: 'shipment.updated',
      accepts: () => true,
      eventTenant,
      acceptsTenant: acme,
    });

  it("another tenant's event, or one without a tenant, past the ledger: filtered, by tenant", () => {
    expect(judge('globex')).toEqual({ state: 'filtered', at: null, tenant: 'globex', committed: '101' });
    expect(judge(null)).toEqual({ state: 'filtered', at: null, tenant: null, committed: '101' });
  });

  it("its own tenant's event past the ledger without a step: passed without a record", () => {
    expect(judge('acme')).toEqual({ state: 'passed-without-record', committed: '101' });
  });

  it('an unknown tenant judges nothing; not reached stays not reached', () => {
    expect(judge(undefined)).toEqual({ state: 'passed-without-record', committed: '101' });
    expect(judge('globex', { committed: '100' })).toEqual({ state: 'not-reached', committed: '100' });
  });
});

describe('latestStep', () => {
  it('takes the latest by time, whatever the input order', () => {
    const a = step({ step: 'delivered', at: '2026-05-01T10:00:05.000Z', attempt: 2 });
    const b = step({ step: 'retry-scheduled', at: '2026-05-01T10:00:00.000Z' });
    expect(latestStep([a, b])).toBe(a);
    expect(latestStep([b, a])).toBe(a);
    expect(latestStep([])).toBeUndefined();
  });

  it('at the same instant, prefers the final step', () => {
    const retry = step({ step: 'retry-scheduled', at: '2026-05-01T10:00:00.000Z' });
    const dead = step({ step: 'dead-lettered', at: '2026-05-01T10:00:00.000Z' });
    expect(latestStep([dead, retry])).toBe(dead);
    expect(latestStep([retry, dead])).toBe(dead);
  });
});

describe('attemptEntriesFor', () => {
  it("keeps this event's parsable entries only", () => {
    const good = step({ step: 'delivered', at: '2026-05-01T10:00:00.000Z' });
    const other = { ...good, eventId: 'evt_2' };
    const entries = attemptEntriesFor('evt_1', [
      { key: 'evt_1', value: Buffer.from(JSON.stringify(good)) },
      { key: 'evt_2', value: Buffer.from(JSON.stringify(other)) },
      { key: 'evt_1', value: Buffer.from('{not json') },
      { key: 'evt_1', value: Buffer.from(JSON.stringify({ ...good, step: 'teleported' })) },
      { key: 'evt_1', value: null },
    ]);
    expect(entries).toEqual([good]);
  });
});

describe('resolveLedgers', () => {
  it('answers for subscribers from groups and from the attempt log, sorted, each with its own ledger', () => {
    const entries = [
      step({ step: 'delivered', at: '2026-05-01T10:00:00.000Z', subscriber: 'crm', status: 200 }),
      step({ step: 'filtered', at: '2026-05-01T10:00:00.000Z', subscriber: 'audit', attempt: 0 }),
    ];
    const lines = resolveLedgers({
      subscribers: ['billing', 'crm', 'late'],
      entries,
      origin: ORIGIN,
      committed: new Map([
        ['billing', committed('101')],
        ['late', committed('50')],
      ]),
    });
    expect(lines.map((l) => [l.subscriber, l.ledger.state])).toEqual([
      ['audit', 'filtered'],
      ['billing', 'passed-without-record'],
      ['crm', 'delivered'],
      ['late', 'not-reached'],
    ]);
    expect(lines[1]?.origin).toEqual(ORIGIN);
  });

  it('uses the scanned location when the attempt log has none', () => {
    const lines = resolveLedgers({
      subscribers: ['billing'],
      entries: [],
      origin: ORIGIN,
      committed: new Map([['billing', committed('100')]]),
    });
    expect(lines).toEqual([
      { subscriber: 'billing', origin: ORIGIN, ledger: { state: 'not-reached', committed: '100' } },
    ]);
  });
});

describe('resolveLedgers with type filters', () => {
  it('judges each subscriber without a step by its own filter; the others as before', () => {
    const lines = resolveLedgers({
      subscribers: ['audit', 'billing', 'crm', 'late', 'gone'],
      entries: [step({ step: 'delivered', at: '2026-05-01T10:00:00.000Z', subscriber: 'crm', status: 200 })],
      origin: ORIGIN,
      committed: new Map([
        ['audit', committed('101')],
        ['billing', committed('101')],
        ['crm', committed('101')],
        ['late', committed('50')],
        ['gone', committed('101')],
      ]),
      eventType: 'shipment.updated',
      // gone has a group but no definition in the catalog: no filter.
      filters: new Map<string, TypeFilter>([
        ['audit', (t: string) => t === 'key.revoked'],
        ['billing', (t: string) => t === 'shipment.updated'],
        ['crm', (t: string) => t === 'key.revoked'],
        ['late', (t: string) => t === 'key.revoked'],
      ]),
    });
    expect(lines.map((l) => [l.subscriber, l.ledger.state])).toEqual([
      ['audit', 'filtered'],
      ['billing', 'passed-without-record'],
      ['crm', 'delivered'],
      ['gone', 'passed-without-record'],
      ['late', 'not-reached'],
    ]);
    expect(lines[0]).toEqual({
      subscriber: 'audit',
      origin: ORIGIN,
      ledger: { state: 'filtered', at: null, eventType: 'shipment.updated', committed: '101' },
    });
  });
});

describe('originFromEntries and subscribersFromGroups', () => {
  it('finds the origin the attempt log recorded', () => {
    expect(originFromEntries([step({ step: 'filtered', at: '2026-05-01T10:00:00.000Z' })])).toEqual(ORIGIN);
    expect(originFromEntries([])).toBeNull();
  });

  it('keeps subscriber groups and drops tool groups and bad names', () => {
    expect(
      subscribersFromGroups([
        'hookstream.sub.billing',
        'hookstream.tool.read.x',
        'other',
        'hookstream.sub.Bad Name',
      ]),
    ).toEqual(['billing']);
  });
});
