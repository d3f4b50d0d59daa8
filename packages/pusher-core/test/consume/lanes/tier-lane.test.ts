import type { ConsumedRecord } from '@hookstream/kafka';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TierLane } from '../../../src/consume/lanes/tier-lane.ts';
import { MemoryBudget, recordBytes } from '../../../src/consume/memory-budget.ts';
import type { HandlerOutcome } from '../../../src/consume/record-handler.ts';

const T0 = 1_000_000;

function record(offset: number, dueAt: number | null, key: string | null = null): ConsumedRecord {
  return {
    topic: 'sub.retry.1',
    partition: 0,
    offset: String(offset),
    key,
    value: Buffer.from('x'),
    headers: dueAt === null ? {} : { due: String(dueAt) },
    timestampMs: offset,
  };
}

/** A handler whose records end when the test says so; notes when each started. */
class Deliveries {
  readonly started: number[] = [];
  readonly startedAt = new Map<number, number>();
  readonly #ends = new Map<number, (o: HandlerOutcome) => void>();
  readonly handle = (r: ConsumedRecord): Promise<HandlerOutcome> => {
    const offset = Number(r.offset);
    this.started.push(offset);
    this.startedAt.set(offset, Date.now());
    return new Promise((resolve) => this.#ends.set(offset, resolve));
  };
  async end(offset: number, outcome: HandlerOutcome = 'settled'): Promise<void> {
    this.#ends.get(offset)?.(outcome);
    await vi.advanceTimersByTimeAsync(0);
  }
}

function setup(
  options: {
    window?: number;
    capacity?: number;
    ordering?: 'none' | 'key';
    ledger?: number;
    budget?: MemoryBudget;
  } = {},
) {
  const deliveries = new Deliveries();
  const fetch = {
    calls: [] as string[],
    pause: () => fetch.calls.push('pause'),
    resume: () => fetch.calls.push('resume'),
  };
  const lane = new TierLane({
    topic: 'sub.retry.1',
    partition: 0,
    dueAtMs: (r) => (r.headers.due === undefined ? null : Number(r.headers.due)),
    handle: deliveries.handle,
    ordering: options.ordering ?? 'none',
    window: options.window ?? 4,
    capacity: options.capacity ?? 16,
    fetch,
    budget: options.budget ?? null,
    log: () => undefined,
    ledger: options.ledger ?? 0,
  });
  return { deliveries, fetch, lane };
}

describe('TierLane', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it('starts each record at its own due time, in due order, never before it', async () => {
    const { deliveries, lane } = setup();
    expect(lane.offer(record(0, T0 + 300))).toBe('taken');
    expect(lane.offer(record(1, T0 + 100))).toBe('taken');
    expect(lane.offer(record(2, null))).toBe('taken');
    expect(lane.offer(record(3, T0 - 50))).toBe('taken');
    // No due time, or due already: at once.
    expect(deliveries.started).toEqual([2, 3]);
    await vi.advanceTimersByTimeAsync(99);
    expect(deliveries.started).toEqual([2, 3]);
    await vi.advanceTimersByTimeAsync(1);
    expect(deliveries.started).toEqual([2, 3, 1]);
    await vi.advanceTimersByTimeAsync(200);
    expect(deliveries.started).toEqual([2, 3, 1, 0]);
    expect(deliveries.startedAt.get(1)).toBe(T0 + 100);
    expect(deliveries.startedAt.get(0)).toBe(T0 + 300);
  });

  it('commits only the settled prefix: a record waiting for its due time holds the ledger', async () => {
    const { deliveries, lane } = setup({ ledger: 5 });
    lane.offer(record(5, T0 + 1000));
    lane.offer(record(6, null));
    await deliveries.end(6);
    // The fetch began at the ledger (5), and 5 is not settled: nothing to commit.
    expect(lane.commitDue(Date.now())).toBe(null);
    await vi.advanceTimersByTimeAsync(1000);
    await deliveries.end(5);
    expect(lane.commitDue(Date.now())).toBe(7);
    lane.committed(7);
    expect(lane.commitDue(Date.now())).toBe(null);
    // Records taken before (a refetch) are passed, not begun again.
    expect(lane.offer(record(6, null))).toBe('taken');
    expect(deliveries.started).toEqual([6, 5]);
  });

  it('keeps at most `window` in flight; the next due record starts as one ends', async () => {
    const { deliveries, lane } = setup({ window: 2 });
    for (const o of [0, 1, 2]) lane.offer(record(o, null));
    expect(deliveries.started).toEqual([0, 1]);
    await deliveries.end(1);
    expect(deliveries.started).toEqual([0, 1, 2]);
  });

  it('when full, pauses the fetch and refuses the record; resumes once half is done', async () => {
    const { deliveries, fetch, lane } = setup({ window: 2, capacity: 4 });
    for (const o of [0, 1, 2, 3]) expect(lane.offer(record(o, null))).toBe('taken');
    expect(lane.offer(record(4, null))).toBe('full');
    expect(fetch.calls).toEqual(['pause']);
    await deliveries.end(0);
    // 3 held of 4: not yet.
    expect(fetch.calls).toEqual(['pause']);
    await deliveries.end(1);
    expect(fetch.calls).toEqual(['pause', 'resume']);
    expect(lane.offer(record(4, null))).toBe('taken');
  });

  it('with ordering key, a later record of a key never starts before an earlier one', async () => {
    const { deliveries, lane } = setup({ ordering: 'key' });
    lane.offer(record(0, T0 + 200, 'k'));
    lane.offer(record(1, T0 + 100, 'k'));
    lane.offer(record(2, T0 + 100, 'other'));
    await vi.advanceTimersByTimeAsync(100);
    expect(deliveries.started).toEqual([2]);
    await vi.advanceTimersByTimeAsync(100);
    expect(deliveries.started).toEqual([2, 0]);
    // And it runs only after the earlier one of its key ended.
    await deliveries.end(0);
    expect(deliveries.started).toEqual([2, 0, 1]);
  });

  it('hold() drops waiting records (they stay unsettled), aborts those in flight and keeps the fetch paused', async () => {
    const { deliveries, fetch, lane } = setup({ window: 1, capacity: 2 });
    lane.offer(record(0, null));
    lane.offer(record(1, T0 + 500));
    expect(lane.offer(record(2, null))).toBe('full');
    lane.hold(true);
    // Held: its fetch stays paused (the next assignment seeks and resumes it).
    expect(fetch.calls).toEqual(['pause', 'pause']);
    expect(lane.offer(record(2, null))).toBe('stopped');
    await vi.advanceTimersByTimeAsync(1000);
    expect(deliveries.started).toEqual([0]);
    await deliveries.end(0, 'abandoned');
    await lane.idle();
    expect(lane.commitDue(Date.now())).toBe(null);
  });

  it('passes over what an earlier lane of the partition settled, and commits past it', async () => {
    const deliveries = new Deliveries();
    const lane = new TierLane({
      topic: 'sub.retry.1',
      partition: 0,
      dueAtMs: () => null,
      handle: deliveries.handle,
      ordering: 'none',
      window: 4,
      capacity: 16,
      fetch: { pause: () => undefined, resume: () => undefined },
      log: () => undefined,
      ledger: 1,
      settled: { before: 3, ahead: [4] },
    });
    for (const o of [1, 2, 3, 4, 5]) expect(lane.offer(record(o, null))).toBe('taken');
    expect(deliveries.started).toEqual([3, 5]);
    await deliveries.end(5);
    expect(lane.settled()).toEqual({ before: 3, ahead: [4, 5] });
    await deliveries.end(3);
    expect(lane.commitDue(Date.now())).toBe(6);
  });

  it("a due time past a timer's reach (24.8 days) does not start the record early", async () => {
    const { deliveries, lane } = setup();
    lane.offer(record(0, T0 + 30 * 86_400_000));
    await vi.advanceTimersByTimeAsync(25 * 86_400_000);
    expect(deliveries.started).toEqual([]);
    await vi.advanceTimersByTimeAsync(5 * 86_400_000);
    expect(deliveries.started).toEqual([0]);
  });

  describe('and the memory budget', () => {
    const big = (offset: number, dueAt: number | null): ConsumedRecord => ({
      ...record(offset, dueAt),
      value: Buffer.alloc(400, offset),
    });
    const size = recordBytes(big(0, T0 + 1000));

    it('takes what the budget has room for, pauses its fetch, and resumes once half its bytes are done', async () => {
      const budget = new MemoryBudget(size * 4);
      const { deliveries, fetch, lane } = setup({ window: 2, budget });
      const offered = [0, 1, 2, 3, 4].map((o) => lane.offer(big(o, T0 + 1000)));
      expect(offered).toEqual(['taken', 'taken', 'taken', 'taken', 'full']);
      expect(fetch.calls).toEqual(['pause']);
      expect(budget.held).toBe(size * 4);
      expect(budget.pausedFetches).toBe(1);
      await vi.advanceTimersByTimeAsync(1000);
      expect(deliveries.started).toEqual([0, 1]);
      await deliveries.end(0);
      expect(fetch.calls).toEqual(['pause']);
      await deliveries.end(1);
      // Half its bytes ended: its fetch reads on from the record it had no room for.
      expect(fetch.calls).toEqual(['pause', 'resume']);
      expect(budget.held).toBe(size * 2);
      expect(budget.pausedFetches).toBe(0);
    });

    it('a lane holding nothing takes one record larger than the whole budget', () => {
      const budget = new MemoryBudget(100);
      const { lane } = setup({ budget });
      expect(lane.offer(big(0, T0 + 1000))).toBe('taken');
      expect(lane.offer(big(1, T0 + 1000))).toBe('full');
    });

    it('releases its waiting records when held, and those in flight as they end', async () => {
      const budget = new MemoryBudget(size * 10);
      const { deliveries, lane } = setup({ window: 1, budget });
      lane.offer(big(0, T0));
      lane.offer(big(1, T0 + 1000));
      expect(budget.held).toBe(size * 2);
      lane.hold(true);
      expect(budget.held).toBe(size);
      await deliveries.end(0, 'abandoned');
      expect(budget.held).toBe(0);
    });
  });
});
