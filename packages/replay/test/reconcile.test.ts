import { HS_HEADER, SubscriberDefinition } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { resolveLedger } from '../src/ledger.ts';
import {
  classifyObligation,
  type LostRange,
  lostInWindow,
  obligation,
  owedFromMs,
  type ReconcileState,
  ReconcileTally,
  reconcileExitCode,
  requiredSubscriber,
  SubscriberEvidence,
} from '../src/reconcile.ts';
import type { StoredRecord } from '../src/stored-record.ts';

const TIER1 = 'hookstream.sub.billing.retry.1';
const TIER2 = 'hookstream.sub.billing.retry.2';
const DLQ = 'hookstream.sub.billing.dlq';
const EVENT = { topic: 'events', partition: 0, offset: '10' };

/** A copy of events:0:10 in `topic` at `offset`, copied from `source`. */
function copy(
  topic: string,
  offset: string,
  source: string,
  extra: Record<string, string> = {},
): StoredRecord {
  const [st, sp, so] = source.split(':');
  return {
    topic,
    partition: 0,
    offset,
    key: 'k',
    value: null,
    timestampMs: 0,
    headers: {
      [HS_HEADER.originTopic]: 'events',
      [HS_HEADER.originPartition]: '0',
      [HS_HEADER.originOffset]: '10',
      [HS_HEADER.sourceTopic]: st ?? '',
      [HS_HEADER.sourcePartition]: sp ?? '',
      [HS_HEADER.sourceOffset]: so ?? '',
      [HS_HEADER.attempts]: '1',
      [HS_HEADER.dueAt]: '2026-12-03T10:00:00.000Z',
      ...extra,
    },
  };
}

const dead = (offset: string, source: string, reason = 'terminal') =>
  copy(DLQ, offset, source, { [HS_HEADER.deadLetterReason]: reason, [HS_HEADER.status]: '422' });
const replayLog = (dlqOffset: string, tierOffset: string) => ({
  key: `${DLQ}:0:${dlqOffset}`,
  value: Buffer.from(JSON.stringify({ tier: { topic: TIER1, partition: 0, offset: tierOffset } })),
});

interface Case {
  readonly name: string;
  /** The group's committed offset on events partition 0 (null: none). */
  readonly committed: string | null;
  readonly tiers?: readonly [topic: string, tier: number, committed: string | null][];
  readonly copies?: readonly StoredRecord[];
  readonly replays?: readonly { key: string; value: Buffer | null }[];
  readonly state: string;
}

const CASES: readonly Case[] = [
  { name: 'above the ledger, no copy', committed: '10', state: 'pending' },
  { name: 'no committed offset, no copy', committed: null, state: 'pending' },
  { name: 'below the ledger, no copy: delivered', committed: '11', state: 'delivered' },
  {
    name: 'in tier 1, above its ledger',
    committed: '11',
    tiers: [[TIER1, 1, '0']],
    copies: [copy(TIER1, '0', 'events:0:10')],
    state: 'retrying',
  },
  {
    name: 'copied to tier 1 after the ledger was read: the copy wins',
    committed: '10',
    tiers: [[TIER1, 1, null]],
    copies: [copy(TIER1, '0', 'events:0:10')],
    state: 'retrying',
  },
  {
    name: 'tier 1 settled with no further copy: delivered from the tier',
    committed: '11',
    tiers: [[TIER1, 1, '1']],
    copies: [copy(TIER1, '0', 'events:0:10')],
    state: 'delivered',
  },
  {
    name: 'tier 1 settled into tier 2, waiting there',
    committed: '11',
    tiers: [
      [TIER1, 1, '1'],
      [TIER2, 2, '0'],
    ],
    copies: [copy(TIER1, '0', 'events:0:10'), copy(TIER2, '0', `${TIER1}:0:0`)],
    state: 'retrying',
  },
  {
    name: 'a terminal answer: dead-lettered',
    committed: '11',
    copies: [dead('0', 'events:0:10')],
    state: 'dead-lettered',
  },
  {
    name: 'dead-lettered after tiers',
    committed: '11',
    tiers: [[TIER1, 1, '1']],
    copies: [copy(TIER1, '0', 'events:0:10'), dead('3', `${TIER1}:0:0`, 'exhausted')],
    state: 'dead-lettered',
  },
  {
    name: 'replayed, its tier 1 copy waiting',
    committed: '11',
    tiers: [[TIER1, 1, '4']],
    copies: [
      dead('0', 'events:0:10'),
      copy(TIER1, '4', `${DLQ}:0:0`, { [HS_HEADER.replayOf]: `${DLQ}:0:0` }),
    ],
    replays: [replayLog('0', '4')],
    state: 'replayed',
  },
  {
    name: 'replayed, its copy not read (the log names it)',
    committed: '11',
    copies: [dead('0', 'events:0:10')],
    replays: [replayLog('0', '4')],
    state: 'replayed',
  },
  {
    name: 'replayed and delivered',
    committed: '11',
    tiers: [[TIER1, 1, '5']],
    copies: [
      dead('0', 'events:0:10'),
      copy(TIER1, '4', `${DLQ}:0:0`, { [HS_HEADER.replayOf]: `${DLQ}:0:0` }),
    ],
    replays: [replayLog('0', '4')],
    state: 'delivered',
  },
  {
    name: 'replayed and dead-lettered again',
    committed: '11',
    tiers: [[TIER1, 1, '5']],
    copies: [
      dead('0', 'events:0:10'),
      copy(TIER1, '4', `${DLQ}:0:0`, { [HS_HEADER.replayOf]: `${DLQ}:0:0` }),
      dead('1', `${TIER1}:0:4`),
    ],
    replays: [replayLog('0', '4')],
    state: 'dead-lettered',
  },
  {
    name: 'a replay log entry deleted (tombstone): dead-lettered',
    committed: '11',
    copies: [dead('0', 'events:0:10')],
    replays: [replayLog('0', '4'), { key: `${DLQ}:0:0`, value: null }],
    state: 'dead-lettered',
  },
  {
    name: 'two copies of one attempt (a crash before the commit): delivered wins over dead',
    committed: '11',
    tiers: [[TIER1, 1, '2']],
    copies: [copy(TIER1, '0', 'events:0:10'), copy(TIER1, '1', 'events:0:10'), dead('0', `${TIER1}:0:0`)],
    state: 'delivered',
  },
  {
    name: 'two copies: one waiting, one dead: retrying',
    committed: '11',
    tiers: [[TIER1, 1, '1']],
    copies: [copy(TIER1, '0', 'events:0:10'), copy(TIER1, '1', 'events:0:10'), dead('0', `${TIER1}:0:0`)],
    state: 'retrying',
  },
];

function evidenceOf(c: Case): SubscriberEvidence {
  const ev = new SubscriberEvidence('billing', 'events');
  for (const [topic, , committed] of c.tiers ?? []) ev.setTierLedger(topic, new Map([[0, committed]]));
  for (const r of c.copies ?? []) {
    if (r.topic === DLQ) ev.addDlqRecord(r);
    else ev.addTierRecord(r, Number(r.topic.split('.').at(-1)));
  }
  for (const r of c.replays ?? []) ev.addReplayLogRecord(r);
  return ev;
}

describe('classifyObligation', () => {
  it.each(CASES)('$name → $state', (c) => {
    const verdict = classifyObligation(EVENT, new Map([[0, c.committed]]), evidenceOf(c));
    expect(verdict.state).toBe(c.state);
  });

  it('agrees with the ledger command on the ledger rule when there is no copy', () => {
    for (const committed of ['9', '10', '11', null]) {
      const reconcile = classifyObligation(EVENT, new Map([[0, committed]]), evidenceOf(CASES[0] as Case));
      const ledger = resolveLedger({ entries: [], origin: EVENT, committed: new Map([[0, committed]]) });
      expect(reconcile.state === 'pending', String(committed)).toBe(ledger.state === 'not-reached');
    }
  });

  it('ignores copies of other events topics and counts unreadable ones', () => {
    const ev = new SubscriberEvidence('billing', 'events');
    ev.addTierRecord(
      {
        ...copy(TIER1, '0', 'other:0:10'),
        headers: { ...copy(TIER1, '0', 'x:0:1').headers, [HS_HEADER.originTopic]: 'other' },
      },
      1,
    );
    ev.addTierRecord({ ...copy(TIER1, '1', 'events:0:10'), headers: {} }, 1);
    expect(ev.size).toBe(0);
    expect(ev.unreadable).toBe(1);
    expect(classifyObligation(EVENT, new Map([[0, '11']]), ev).state).toBe('delivered');
  });
});

const def = (over: Record<string, unknown>) =>
  SubscriberDefinition.parse({ name: 'billing', url: 'https://billing.example/', ...over });
const T = (iso: string) => Date.parse(iso);

describe('owedFromMs and obligation', () => {
  it.each([
    { over: {}, started: null, from: null },
    { over: { required: true, start: 'earliest' }, started: null, from: -Infinity },
    {
      over: { required: true, requiredFrom: '2026-12-01T00:00:00Z', start: 'earliest' },
      started: null,
      from: T('2026-12-01T00:00:00Z'),
    },
    {
      over: { required: true, requiredFrom: '2026-12-01T00:00:00Z' },
      started: '2026-12-02T00:00:00Z',
      from: T('2026-12-02T00:00:00Z'),
    },
    {
      over: { required: true, requiredFrom: '2026-12-01T00:00:00Z' },
      started: null,
      from: T('2026-12-01T00:00:00Z'),
    },
    {
      over: { required: true, requiredFrom: '2026-12-03T00:00:00Z', start: '2026-12-02T00:00:00Z' },
      started: '2026-12-05T00:00:00Z',
      from: T('2026-12-03T00:00:00Z'),
    },
    {
      over: { required: true, requiredFrom: '2026-12-01T00:00:00Z', start: '2026-12-02T00:00:00Z' },
      started: null,
      from: T('2026-12-02T00:00:00Z'),
    },
  ])('$over, first started $started → $from', ({ over, started, from }) => {
    expect(owedFromMs(def(over), started)).toBe(from);
  });

  it.each([
    { types: ['*'], type: 'key.revoked', at: '2026-12-02T00:00:00Z', is: 'owed' },
    { types: ['key.revoked'], type: 'key.revoked', at: '2026-12-02T00:00:00Z', is: 'owed' },
    { types: ['key.revoked'], type: 'shipment.updated', at: '2026-12-02T00:00:00Z', is: 'filtered' },
    { types: ['key.revoked'], type: null, at: '2026-12-02T00:00:00Z', is: 'filtered' },
    { types: ['key.revoked'], type: 'key.revoked', at: '2026-11-30T23:59:59Z', is: 'not-owed' },
    { types: ['key.revoked'], type: 'shipment.updated', at: '2026-11-30T00:00:00Z', is: 'filtered' },
  ])('$types takes $type at $at: $is', ({ types, type, at, is }) => {
    const s = requiredSubscriber(
      def({ required: true, requiredFrom: '2026-12-01T00:00:00Z', start: 'earliest', eventTypes: types }),
      null,
    );
    expect(s).not.toBeNull();
    if (s !== null) expect(obligation(s, { type, timestampMs: T(at) })).toBe(is);
  });

  it("a tenant's required subscriber owes only its tenant's events", () => {
    const s = requiredSubscriber(def({ required: true, start: 'earliest', tenant: 'acme' }), null);
    if (s === null) throw new Error('required');
    const at = T('2026-12-02T00:00:00Z');
    expect(obligation(s, { type: 'key.revoked', tenant: 'acme', timestampMs: at })).toBe('owed');
    expect(obligation(s, { type: 'key.revoked', tenant: 'globex', timestampMs: at })).toBe('filtered');
    expect(obligation(s, { type: 'key.revoked', timestampMs: at })).toBe('filtered');
    const ops = requiredSubscriber(def({ required: true, start: 'earliest' }), null);
    if (ops === null) throw new Error('required');
    expect(obligation(ops, { type: 'key.revoked', tenant: 'globex', timestampMs: at })).toBe('owed');
  });

  it('a subscriber that is not required owes nothing', () => {
    expect(requiredSubscriber(def({ required: false }), null)).toBeNull();
  });
});

describe('lostInWindow', () => {
  const range = (over: Partial<LostRange>): LostRange => ({
    topic: 'events',
    partition: 0,
    lostFrom: '100',
    lostTo: '199',
    lostCount: 100,
    foundAtMs: T('2026-12-02T12:00:00Z'),
    dlq: { topic: DLQ, partition: 0, offset: '0' },
    ...over,
  });
  const from = T('2026-12-02T00:00:00Z');
  it.each([
    { name: 'overlaps the offsets read', r: {}, w: { start: '150', end: '300', cut: false }, in: true },
    {
      name: 'below the offsets read, window whole',
      r: {},
      w: { start: '200', end: '300', cut: false },
      in: false,
    },
    {
      name: 'below a cut window, found after its start',
      r: {},
      w: { start: '200', end: '300', cut: true },
      in: true,
    },
    {
      name: 'below a cut window, found before its start',
      r: { foundAtMs: from - 1 },
      w: { start: '200', end: '300', cut: true },
      in: false,
    },
    { name: 'another partition', r: { partition: 1 }, w: { start: '0', end: '300', cut: false }, in: false },
    {
      name: 'a tier range found in the window',
      r: { topic: TIER1 },
      w: { start: '0', end: '1', cut: false },
      in: true,
    },
    {
      name: 'a tier range found before the window',
      r: { topic: TIER1, foundAtMs: from - 1 },
      w: { start: '0', end: '1', cut: false },
      in: false,
    },
  ])('$name: $in', ({ r, w, in: expected }) => {
    expect(lostInWindow(range(r), 'events', from, [{ partition: 0, ...w }])).toBe(expected);
  });

  it('a lost dead letter becomes a range of the evidence', () => {
    const ev = new SubscriberEvidence('billing', 'events');
    ev.addDlqRecord({
      topic: DLQ,
      partition: 0,
      offset: '3',
      key: 'lost:events:0:100',
      value: null,
      timestampMs: 0,
      headers: {
        [HS_HEADER.deadLetterReason]: 'lost',
        [HS_HEADER.originTopic]: 'events',
        [HS_HEADER.originPartition]: '0',
        [HS_HEADER.originOffset]: '100',
        [HS_HEADER.lostFrom]: '100',
        [HS_HEADER.lostTo]: '199',
        [HS_HEADER.lostCount]: '100',
        [HS_HEADER.deadLetteredAt]: '2026-12-02T12:00:00.000Z',
      },
    });
    expect(ev.lost).toEqual([range({ dlq: { topic: DLQ, partition: 0, offset: '3' } })]);
    expect(ev.size).toBe(0);
  });
});

describe('ReconcileTally and the exit code', () => {
  it('counts every state, lists the first n of each listed one, and decides the exit code', () => {
    const tally = new ReconcileTally(['b', 'a'], 2);
    const item = (id: string) => ({ eventId: id, location: `events:0:${id}`, detail: '' });
    const count = (t: ReconcileTally, name: string, state: ReconcileState, id: string, weight = 1) => {
      if (t.count(name, state, weight)) t.list(name, state, item(id));
    };
    for (const id of ['1', '2', '3']) count(tally, 'a', 'pending', id);
    count(tally, 'a', 'delivered', '4');
    expect(tally.count('a', 'filtered')).toBe(false);
    tally.notOwed('a');
    count(tally, 'b', 'lost', '-', 50);
    const [a, b] = tally.result();
    expect(a?.subscriber).toBe('a');
    expect(a?.owed).toBe(4);
    expect(a?.notOwed).toBe(1);
    expect(a?.counts).toMatchObject({ pending: 3, delivered: 1, filtered: 1 });
    expect(a?.listed.pending?.map((l) => l.eventId)).toEqual(['1', '2']);
    expect(a?.listed.delivered).toBeUndefined();
    expect(b?.counts.lost).toBe(50);
    expect(() => tally.count('c', 'pending')).toThrow();

    const boundary = { topic: 'events', partition: 0, firstKeptMs: 1 };
    expect(reconcileExitCode(tally.result(), null)).toBe(1);
    expect(
      reconcileExitCode(
        [a].filter((x) => x !== undefined),
        null,
      ),
    ).toBe(0);
    expect(
      reconcileExitCode(
        [a].filter((x) => x !== undefined),
        boundary,
      ),
    ).toBe(3);
    const replayed = new ReconcileTally(['a']);
    count(replayed, 'a', 'replayed', '1');
    count(replayed, 'a', 'retrying', '2');
    expect(reconcileExitCode(replayed.result(), null)).toBe(0);
    const deadOne = new ReconcileTally(['a']);
    count(deadOne, 'a', 'dead-lettered', '1');
    expect(reconcileExitCode(deadOne.result(), boundary)).toBe(1);
  });
});
