import { EventSelection } from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import { EventsLane, type LaneOwner } from '../../../src/consume/lanes/events-lane.ts';
import type { SettledOffsets } from '../../../src/consume/ledger/settled-offsets.ts';
import { MemoryBudget, recordBytes } from '../../../src/consume/memory-budget.ts';
import type { HandlerOutcome } from '../../../src/consume/record-handler.ts';
import { CatchUpFeeds, type PartitionReader } from '../../../src/consume/tap/catch-up-feeds.ts';
import { TapFeeds } from '../../../src/consume/tap/tap-feeds.ts';

function record(
  offset: number,
  type = 'shipment.updated',
  key: string | null = null,
  tenant?: string,
): ConsumedRecord {
  return {
    topic: 'events',
    partition: 0,
    offset: String(offset),
    key,
    value: Buffer.from('x'),
    headers: tenant === undefined ? { ce_type: type } : { ce_type: type, ce_tenant: tenant },
    timestampMs: 1000 + offset,
  };
}

/** A handler whose records end when the test says so. */
class Deliveries {
  readonly started: number[] = [];
  readonly records: ConsumedRecord[] = [];
  readonly #ends = new Map<number, (o: HandlerOutcome) => void>();
  readonly handle = (r: ConsumedRecord): Promise<HandlerOutcome> => {
    const offset = Number(r.offset);
    this.started.push(offset);
    this.records.push(r);
    return new Promise((resolve) => this.#ends.set(offset, resolve));
  };
  end(offset: number, outcome: HandlerOutcome = 'settled'): Promise<void> {
    this.#ends.get(offset)?.(outcome);
    return new Promise((resolve) => setImmediate(resolve));
  }
}

class Owner implements LaneOwner {
  readonly calls: string[] = [];
  readOwn(_partition: number, offset: number | null): void {
    this.calls.push(`own@${offset}`);
  }
  pauseOwn(): void {
    this.calls.push('pause');
  }
}

function setup(
  options: {
    window?: number;
    types?: string[] | null;
    recent?: number;
    end?: number;
    budget?: MemoryBudget;
    tenant?: string;
    fairness?: 'tenant';
    ordering?: 'none' | 'key';
    catchUp?: CatchUpFeeds;
  } = {},
) {
  const feeds = new TapFeeds(options.recent ?? 100);
  const types = options.types === null ? null : new Set(options.types ?? ['shipment.updated']);
  // The lane's subscriber is the process's: the tap keeps its types.
  feeds.want(types);
  feeds.open(0, options.end ?? 10);
  const owner = new Owner();
  const deliveries = new Deliveries();
  /** A lane at the group's committed offset `ledger`, started. */
  const start = (ledger: number, settled: SettledOffsets | null = null) => {
    const lane = new EventsLane({
      topic: 'events',
      partition: 0,
      ledger,
      settled,
      tap: feeds,
      catchUp: options.catchUp ?? null,
      owner,
      handle: deliveries.handle,
      ordering: options.ordering ?? 'none',
      window: options.window ?? 4,
      selection: new EventSelection(types, options.tenant ?? null),
      budget: options.budget ?? null,
      fairness: options.fairness ?? null,
      log: () => undefined,
    });
    lane.start();
    return lane;
  };
  return { feeds, owner, deliveries, start };
}

/** The catch-up reader's calls, in order: `read@<offset>` and `hold`. */
function catchUpReader(): PartitionReader & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    read: (_partition, offset) => {
      calls.push(`read@${offset}`);
      return true;
    },
    hold: () => {
      calls.push('hold');
    },
  };
}

describe('EventsLane', () => {
  it('behind the tap, reads through the catch-up reader with its member paused, then rides', async () => {
    const reader = catchUpReader();
    const catchUp = new CatchUpFeeds(reader);
    catchUp.open(0);
    const { feeds, owner, deliveries, start } = setup({ window: 8, end: 0, recent: 3, catchUp });
    const batch = [0, 1, 2, 3, 4].map((o) => record(o));
    feeds.receive(0, 0, batch);
    const lane = start(0);
    expect(lane.mode).toBe('catching-up');
    expect(owner.calls).toEqual(['pause']);
    expect(reader.calls).toEqual(['read@0']);
    catchUp.receive(0, 0, batch);
    // 0 and 1 from the catch-up reader; from 2 the tap still holds them.
    expect(lane.mode).toBe('riding');
    expect(deliveries.started).toEqual([0, 1, 2, 3, 4]);
    expect(reader.calls).toEqual(['read@0', 'hold']);
    expect(catchUp.reads(lane)).toBe(false);
  });

  it('let go by the catch-up reader, its member reads on from where it was', () => {
    const catchUp = new CatchUpFeeds(catchUpReader());
    catchUp.open(0);
    const { owner, deliveries, start } = setup({ window: 8, end: 50, catchUp });
    const lane = start(0);
    catchUp.receive(0, 0, [record(0), record(1)]);
    catchUp.kill();
    expect(lane.mode).toBe('own');
    expect(owner.calls).toEqual(['pause', 'own@2']);
    expect(deliveries.started).toEqual([0, 1]);
  });

  it('rides the tap from its committed offset and takes only its types', async () => {
    const { feeds, owner, deliveries, start } = setup();
    const lane = start(10);
    expect(lane.mode).toBe('riding');
    expect(owner.calls).toEqual(['pause']);
    feeds.receive(0, 10, [record(10), record(11, 'student.enrolled'), record(12)]);
    expect(deliveries.started).toEqual([10, 12]);
    await deliveries.end(12);
    // Offset 10 is still in flight: the ledger stops before it.
    expect(lane.commitDue(Date.now(), 0)).toBe(null);
    await deliveries.end(10);
    expect(lane.commitDue(Date.now(), 0)).toBe(13);
  });

  it('commits past records of other types only after the quiet period, and nothing when idle', () => {
    const { feeds, start } = setup();
    const lane = start(10);
    const now = Date.now();
    expect(lane.commitDue(now, 10_000)).toBe(null);
    feeds.receive(0, 10, [record(10, 'student.enrolled'), record(11, 'student.enrolled')]);
    expect(lane.commitDue(now, 10_000)).toBe(null);
    expect(lane.commitDue(now + 10_000, 10_000)).toBe(12);
    lane.committed(12);
    expect(lane.commitDue(now + 60_000, 10_000)).toBe(null);
  });

  it('queues what the tap offers behind a full window, and rides on while the queue has room', async () => {
    const { feeds, owner, deliveries, start } = setup({ window: 2 });
    const lane = start(10);
    feeds.receive(0, 10, [record(10), record(11), record(12), record(13)]);
    expect(deliveries.started).toEqual([10, 11]);
    expect(lane.mode).toBe('riding');
    expect(owner.calls).toEqual(['pause']);
    // Queued records start in order as the window frees, and hold the ledger until they settle.
    await deliveries.end(10);
    expect(deliveries.started).toEqual([10, 11, 12]);
    expect(lane.commitDue(Date.now(), 0)).toBe(11);
    feeds.receive(0, 14, [record(14)]);
    await deliveries.end(11);
    expect(deliveries.started).toEqual([10, 11, 12, 13]);
    await deliveries.end(12);
    expect(deliveries.started).toEqual([10, 11, 12, 13, 14]);
  });

  it('reads on by itself once its queue is full too, from the first record it could not take', async () => {
    const { feeds, owner, deliveries, start } = setup({ window: 1 });
    const lane = start(10);
    // 10 begins, eight windows (8 records) queue, 19 finds no room.
    feeds.receive(
      0,
      10,
      Array.from({ length: 11 }, (_, i) => record(10 + i)),
    );
    expect(deliveries.started).toEqual([10]);
    expect(lane.mode).toBe('own');
    expect(owner.calls).toEqual(['pause', 'own@19']);
    // The tap let it go: later records are not offered again.
    feeds.receive(0, 21, [record(21)]);
    expect(deliveries.started).toEqual([10]);
    // Its own fetch: records it already took are passed; with the window full the rest of the
    // batch is queued too and the own fetch pauses.
    expect(lane.fromOwnFetch(record(18))).toBe('next');
    expect(lane.fromOwnFetch(record(19))).toBe('stop');
    lane.afterOwnBatch();
    expect(owner.calls).toEqual(['pause', 'own@19', 'pause']);
    // The queued records hold the ledger like one in flight.
    await deliveries.end(10);
    expect(deliveries.started).toEqual([10, 11]);
    expect(lane.commitDue(Date.now(), 0)).toBe(11);
  });

  it('queues at most eight windows of its own fetch, then reads on from the first record not taken', async () => {
    const { feeds, owner, deliveries, start } = setup({ window: 1, end: 0, recent: 1 });
    const batch = Array.from({ length: 12 }, (_, o) => record(o));
    feeds.receive(0, 0, batch);
    const lane = start(0);
    expect(owner.calls).toEqual(['own@0']);
    // 0 begins, 1..8 are queued, 9 ends the batch.
    expect(batch.slice(0, 10).map((r) => lane.fromOwnFetch(r))).toEqual([...Array(9).fill('next'), 'stop']);
    lane.afterOwnBatch();
    expect(owner.calls).toEqual(['own@0', 'pause']);
    for (let o = 0; o < 8; o++) await deliveries.end(o);
    expect(deliveries.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // The queue ran dry with half the window free: its own fetch reads on from 9.
    await deliveries.end(8);
    expect(owner.calls).toEqual(['own@0', 'pause', 'own@9']);
    expect(lane.commitDue(Date.now(), 0)).toBe(9);
  });

  it('rides again once its own fetch reaches records the tap still holds', async () => {
    const { feeds, owner, deliveries, start } = setup({ window: 8, end: 0, recent: 3 });
    feeds.receive(0, 0, [record(0), record(1), record(2), record(3), record(4)]);
    const lane = start(0);
    // 0 and 1 fell out of the tap's recent records: the lane reads them itself.
    expect(lane.mode).toBe('own');
    expect(owner.calls).toEqual(['own@0']);
    expect(lane.fromOwnFetch(record(0))).toBe('next');
    expect(lane.fromOwnFetch(record(1))).toBe('next');
    // 2 is still in the tap: the lane rides from there and its own batch ends.
    expect(lane.fromOwnFetch(record(2))).toBe('stop');
    expect(lane.mode).toBe('riding');
    expect(deliveries.started).toEqual([0, 1, 2, 3, 4]);
    for (const o of [0, 1, 2, 3, 4]) await deliveries.end(o);
    expect(lane.commitDue(Date.now(), 0)).toBe(5);
  });

  it('passes over records of other types in its own fetch without handling them', async () => {
    const { deliveries, start } = setup({ end: 100 });
    const lane = start(0);
    expect(lane.mode).toBe('own');
    expect(lane.fromOwnFetch(record(0, 'student.enrolled'))).toBe('next');
    expect(lane.fromOwnFetch(record(1))).toBe('next');
    expect(deliveries.started).toEqual([1]);
    await deliveries.end(1);
    expect(lane.commitDue(Date.now(), 0)).toBe(2);
  });

  it("a tenant's lane takes from the tap only its tenant's records, and passes over the rest", async () => {
    const { feeds, deliveries, start } = setup({ tenant: 'acme' });
    const lane = start(10);
    expect(lane.mode).toBe('riding');
    feeds.receive(0, 10, [
      record(10, 'shipment.updated', null, 'acme'),
      record(11, 'shipment.updated', null, 'globex'),
      record(12),
      record(13, 'student.enrolled', null, 'acme'),
      record(14, 'shipment.updated', null, 'acme'),
    ]);
    expect(deliveries.started).toEqual([10, 14]);
    await deliveries.end(10);
    await deliveries.end(14);
    expect(lane.commitDue(Date.now(), 0)).toBe(15);
  });

  it("a tenant's lane passes over other tenants' records, and those without one, in its own fetch", async () => {
    const { deliveries, start } = setup({ end: 100, tenant: 'acme' });
    const lane = start(0);
    expect(lane.mode).toBe('own');
    expect(lane.fromOwnFetch(record(0, 'shipment.updated', null, 'globex'))).toBe('next');
    expect(lane.fromOwnFetch(record(1))).toBe('next');
    expect(lane.fromOwnFetch(record(2, 'shipment.updated', null, 'acme'))).toBe('next');
    expect(deliveries.started).toEqual([2]);
    await deliveries.end(2);
    expect(lane.commitDue(Date.now(), 0)).toBe(3);
  });

  it('a lane without a tenant takes records with a tenant and without', () => {
    const { feeds, deliveries, start } = setup();
    start(10);
    feeds.receive(0, 10, [record(10, 'shipment.updated', null, 'acme'), record(11)]);
    expect(deliveries.started).toEqual([10, 11]);
  });

  it('an abandoned record holds the ledger', async () => {
    const { feeds, owner, deliveries, start } = setup({ window: 1, types: null });
    const lane = start(10);
    feeds.receive(0, 10, [record(10), record(11)]);
    expect(deliveries.started).toEqual([10]);
    lane.hold(true);
    await deliveries.end(10, 'abandoned');
    await lane.idle();
    expect(lane.commitDue(Date.now(), 0)).toBe(null);
    // Held: its own fetch stays paused, and ending records does not resume it.
    expect(owner.calls.at(-1)).toBe('pause');
  });

  it('starts past what the previous consumer settled and passes over what it settled beyond, delivering only the rest', async () => {
    const { feeds, deliveries, start } = setup({ end: 10, types: null });
    const lane = start(10, { before: 12, ahead: [13, 15] });
    feeds.receive(0, 10, [
      record(10),
      record(11),
      record(12),
      record(13),
      record(14),
      record(15),
      record(16),
    ]);
    expect(deliveries.started).toEqual([12, 14, 16]);
    for (const o of [12, 14, 16]) await deliveries.end(o);
    // The ledger (10) moves over all of it, and the lane reports what it settled.
    expect(lane.commitDue(Date.now(), 10_000)).toBe(17);
    expect(lane.settled()).toEqual({ before: 17, ahead: [] });
  });

  it('reports what it settled beyond a record still unsettled', async () => {
    const { feeds, deliveries, start } = setup({ types: null });
    const lane = start(10);
    feeds.receive(0, 10, [record(10), record(11), record(12)]);
    await deliveries.end(12);
    await deliveries.end(10, 'abandoned');
    expect(lane.settled()).toEqual({ before: 10, ahead: [12] });
  });

  it('the tap stopping sends a riding lane to its own fetch where the tap was', () => {
    const { feeds, owner, start } = setup();
    const lane = start(10);
    feeds.receive(0, 10, [record(10, 'student.enrolled'), record(11, 'student.enrolled')]);
    feeds.kill();
    expect(lane.mode).toBe('own');
    expect(owner.calls).toEqual(['pause', 'own@12']);
  });
});

describe('EventsLane and the memory budget', () => {
  const big = (offset: number): ConsumedRecord => ({ ...record(offset), value: Buffer.alloc(400, offset) });
  const size = recordBytes(big(0));

  it('queues behind its window only what the budget has room for, copied; the rest is fetched again', async () => {
    const budget = new MemoryBudget(size * 2);
    const { owner, deliveries, start } = setup({ window: 1, end: 50, budget });
    const lane = start(0);
    const batch = [0, 1, 2, 3].map(big);
    // 0 begins (in flight: bounded by the window), 1 and 2 are queued and charged, 3 ends the batch.
    expect(batch.map((r) => lane.fromOwnFetch(r))).toEqual(['next', 'next', 'next', 'stop']);
    lane.afterOwnBatch();
    expect(budget.held).toBe(size * 2);
    expect(budget.pausedFetches).toBe(1);
    expect(owner.calls).toEqual(['own@0', 'pause']);
    await deliveries.end(0);
    expect(budget.held).toBe(size);
    const queued = deliveries.records[1];
    expect(queued?.value).toEqual(batch[1]?.value);
    expect(queued?.value?.buffer).not.toBe(batch[1]?.value?.buffer);
    await deliveries.end(1);
    await deliveries.end(2);
    // Nothing dropped: the own fetch reads on from the record the budget had no room for.
    expect(budget.held).toBe(0);
    expect(budget.pausedFetches).toBe(0);
    expect(owner.calls).toEqual(['own@0', 'pause', 'own@3']);
  });

  it('a lane holding nothing queues one record larger than the whole budget', () => {
    const budget = new MemoryBudget(100);
    const { start } = setup({ window: 1, end: 50, budget });
    const lane = start(0);
    expect([0, 1, 2].map((o) => lane.fromOwnFetch(big(o)))).toEqual(['next', 'next', 'stop']);
    expect(budget.held).toBe(size);
  });

  it('releases what it queued when it is held', () => {
    const budget = new MemoryBudget(size * 4);
    const { start } = setup({ window: 1, end: 50, budget });
    const lane = start(0);
    for (const o of [0, 1, 2]) lane.fromOwnFetch(big(o));
    expect(budget.held).toBe(size * 2);
    lane.hold(true);
    expect(budget.held).toBe(0);
  });
});

describe('TapFeeds', () => {
  it('a gap in what the tap saw releases its riders at the cursor', () => {
    const { feeds, owner, start } = setup();
    const lane = start(10);
    feeds.receive(0, 10, [record(10, 'student.enrolled')]);
    feeds.receive(0, 20, [record(20)]);
    expect(lane.mode).toBe('own');
    expect(owner.calls).toEqual(['pause', 'own@11']);
    expect(feeds.covers(0, 15, new Set(['shipment.updated']))).toBe(false);
    expect(feeds.covers(0, 20, new Set(['shipment.updated']))).toBe(true);
  });

  it('refuses riders from before what it has seen', () => {
    const { feeds, start, owner } = setup({ end: 50 });
    const lane = start(40);
    expect(lane.mode).toBe('own');
    expect(owner.calls).toEqual(['own@40']);
    expect(feeds.cursor(0)).toBe(50);
  });
});

describe('EventsLane with fairness "tenant"', () => {
  /** Own-fetch records 10.. of tenant `a` (a burst), then `b`'s, through a fair lane with window 2. */
  function burst(
    options: { budget?: MemoryBudget; ordering?: 'none' | 'key'; keys?: (i: number) => string } = {},
  ) {
    const env = setup({ window: 2, fairness: 'tenant', end: 50, ...options });
    const lane = env.start(10);
    const fetched = (offset: number, tenant: string) =>
      lane.fromOwnFetch(record(offset, 'shipment.updated', options.keys?.(offset) ?? null, tenant));
    return { ...env, lane, fetched };
  }

  it('reads on past its window while its queue has room; each tenant runs a window of its own, and queued ones take turns', async () => {
    const { owner, deliveries, lane, fetched } = burst();
    const calls = owner.calls.length;
    for (let o = 10; o < 30; o++) expect(fetched(o, 'a')).toBe('next');
    for (let o = 30; o < 33; o++) expect(fetched(o, 'b')).toBe('next');
    lane.afterOwnBatch();
    // The fetch was never paused: the next batch comes on its own.
    expect(owner.calls.slice(calls)).toEqual([]);
    // b's records start at once, behind a's burst, in a window of b's own.
    expect(deliveries.started).toEqual([10, 11, 30, 31]);
    for (const offset of [10, 30, 11]) await deliveries.end(offset);
    expect(deliveries.started).toEqual([10, 11, 30, 31, 12, 32, 13]);
    // The ledger stays contiguous: 12 is the first record not settled.
    expect(lane.commitDue(Date.now(), 0)).toBe(12);
  });

  it('pauses its fetch only when the budget is full, and reads on once a quarter of its queue has started', async () => {
    const one = recordBytes(record(0, 'shipment.updated', null, 'a'));
    const { owner, deliveries, lane, fetched } = burst({ budget: new MemoryBudget(one * 4 * 4) });
    for (let o = 10; o < 16; o++) expect(fetched(o, 'a')).toBe('next');
    // Two in flight, four queued: a fair lane's read-ahead takes at most a quarter of the budget.
    expect(fetched(16, 'a')).toBe('stop');
    lane.afterOwnBatch();
    expect(owner.calls.at(-1)).toBe('pause');
    await deliveries.end(10);
    // Three left of four: it reads on from the first record it did not take.
    expect(owner.calls.at(-1)).toBe('own@16');
  });

  it("stops at the budget's refusal too, and counts it as a fetch paused by the budget", () => {
    const one = recordBytes(record(0, 'shipment.updated', null, 'a'));
    const budget = new MemoryBudget(one * 16);
    budget.tryReserve(one * 14, 1);
    const { owner, fetched } = burst({ budget });
    for (let o = 10; o < 14; o++) expect(fetched(o, 'a')).toBe('next');
    expect(fetched(14, 'a')).toBe('stop');
    expect(owner.calls.at(-1)).toBe('pause');
    expect(budget.pausedFetches).toBe(1);
  });

  it('with key ordering never runs a record before an older queued one of its key, whatever the tenant', async () => {
    // Offsets 10–13: tenant a, keys k0..k3; 14: tenant b, key k2 (a's 12 is older).
    const keys = (o: number) => (o === 14 ? 'k2' : `k${o - 10}`);
    const { deliveries, fetched } = burst({ ordering: 'key', keys });
    for (let o = 10; o < 14; o++) fetched(o, 'a');
    fetched(14, 'b');
    // b's window has room, but its record waits for a's 12 of the same key.
    expect(deliveries.started).toEqual([10, 11]);
    await deliveries.end(10);
    expect(deliveries.started).toEqual([10, 11, 12]);
    await deliveries.end(11);
    // b's 14 is taken now, and a's 13; 14 runs only once a's 12 has ended (key order).
    expect(deliveries.started).toEqual([10, 11, 12, 13]);
    await deliveries.end(12);
    expect(deliveries.started).toEqual([10, 11, 12, 13, 14]);
  });
});
