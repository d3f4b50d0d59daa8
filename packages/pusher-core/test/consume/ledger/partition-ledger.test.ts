import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import { PartitionLedger } from '../../../src/consume/ledger/partition-ledger.ts';
import type { SettledOffsets } from '../../../src/consume/ledger/settled-offsets.ts';
import type { HandlerOutcome } from '../../../src/consume/record-handler.ts';

function record(offset: number, key: string | null = null): ConsumedRecord {
  return {
    topic: 't',
    partition: 0,
    offset: String(offset),
    key,
    value: null,
    headers: {},
    timestampMs: 1000 + offset,
  };
}

/** A handler whose records end when the test says so. */
function setup(ledger: number, settled: SettledOffsets | null = null, ordering: 'none' | 'key' = 'none') {
  const started: number[] = [];
  const ends = new Map<number, { resolve: (o: HandlerOutcome) => void; reject: (e: Error) => void }>();
  const logged: string[] = [];
  let endedCalls = 0;
  const core = new PartitionLedger({
    topic: 't',
    partition: 0,
    ledger,
    settled,
    ordering,
    handle: (r) => {
      started.push(Number(r.offset));
      return new Promise((resolve, reject) => ends.set(Number(r.offset), { resolve, reject }));
    },
    log: (_level, message) => logged.push(message),
    ended: () => {
      endedCalls++;
    },
  });
  const run = (offset: number, key: string | null = null) => {
    core.begin(offset, 1000 + offset);
    core.run(record(offset, key), offset);
  };
  const end = async (offset: number, outcome: HandlerOutcome | Error = 'settled') => {
    const e = ends.get(offset);
    if (outcome instanceof Error) e?.reject(outcome);
    else e?.resolve(outcome);
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { core, run, end, started, logged, ended: () => endedCalls };
}

describe('PartitionLedger', () => {
  it('commits only the contiguous settled prefix, whatever order records settle in', async () => {
    const { core, run, end } = setup(5);
    expect(core.commitTarget()).toBe(5);
    for (const o of [5, 6, 7]) run(o);
    expect(core.inFlight).toBe(3);
    await end(7);
    await end(6);
    expect(core.commitTarget()).toBe(5);
    expect(core.settled()).toEqual({ before: 5, ahead: [6, 7] });
    await end(5);
    expect(core.commitTarget()).toBe(8);
    expect(core.commitDue(Date.now(), 10_000)).toBe(8);
  });

  it('records that settle while a commit is on its way are due at the next commit, not after the quiet period', async () => {
    const { core, run, end } = setup(0);
    for (const o of [0, 1, 2]) run(o);
    await end(0);
    const now = Date.now();
    expect(core.commitDue(now, 10_000)).toBe(1);
    // The commit of 1 is on its way; 1 and 2 settle before its answer.
    await end(1);
    await end(2);
    core.committed(1);
    expect(core.commitDue(now, 10_000)).toBe(3);
    core.committed(3);
    expect(core.commitDue(now, 10_000)).toBeNull();
  });

  it('an abandoned record holds the ledger', async () => {
    const { core, run, end, ended } = setup(0);
    run(0);
    run(1);
    await end(0, 'abandoned');
    await end(1);
    expect(ended()).toBe(2);
    expect(core.commitTarget()).toBe(0);
  });

  it('a record whose handler failed runs again, logged, and settles; abort ends its wait as abandoned', async () => {
    const { core, run, end, logged, ended, started } = setup(0);
    run(0);
    run(1);
    await end(0, new Error('Redis went away'));
    expect(logged).toEqual(['record handler failed; running the record again']);
    // Still in flight: its window slot is not given to another record while it waits.
    expect([core.inFlight, ended()]).toEqual([2, 0]);
    const deadline = Date.now() + 5000;
    while (started.filter((o) => o === 0).length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual([0, 1, 0]);
    await end(0);
    await end(1);
    expect(core.commitTarget()).toBe(2);
    expect(ended()).toBe(2);

    run(2);
    await end(2, new Error('Kafka went away'));
    core.abort();
    await core.idle();
    expect(core.commitTarget()).toBe(2);
    expect(started).toEqual([0, 1, 0, 2]);
  });

  it('idle() waits for every record in flight; oldestUnsettled is the oldest begun and not settled', async () => {
    const { core, run, end } = setup(0);
    let idle = false;
    void core.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(true);
    run(3);
    run(4);
    expect(core.oldestUnsettled()).toBe(1003);
    idle = false;
    void core.idle().then(() => {
      idle = true;
    });
    await end(3);
    expect(idle).toBe(false);
    expect(core.oldestUnsettled()).toBe(1004);
    await end(4);
    expect(idle).toBe(true);
    expect(core.oldestUnsettled()).toBeNull();
  });

  it("oldestBegunAt is this process's clock when the first unsettled record began, not its Kafka timestamp", async () => {
    const { core, run, end } = setup(0);
    expect(core.oldestBegunAt()).toBeNull();
    const before = Date.now();
    run(3);
    await new Promise((resolve) => setTimeout(resolve, 5));
    run(4);
    const first = core.oldestBegunAt() ?? 0;
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(Date.now());
    await end(3);
    expect(core.oldestBegunAt()).toBeGreaterThan(first);
    await end(4);
    expect(core.oldestBegunAt()).toBeNull();
  });

  it('a ledger moved only by records passed over waits out the quiet period', () => {
    const { core } = setup(10);
    const now = Date.now();
    core.skipTo(12);
    expect(core.commitDue(now, 10_000)).toBeNull();
    expect(core.commitDue(now + 10_000, 10_000)).toBe(12);
    core.committed(12);
    expect(core.commitDue(now + 60_000, 10_000)).toBeNull();
    // What the lane saw beyond its own records (a tap's cursor) counts as passed over too. The
    // quiet period counts from when the move was first seen, however long ago the last commit was:
    // a fleet's idle ledgers that all see the same records pass do not all commit at once.
    expect(core.commitDue(now + 200_000, 10_000, 15)).toBeNull();
    expect(core.commitDue(now + 209_999, 10_000, 15)).toBeNull();
    expect(core.commitDue(now + 210_000, 10_000, 15)).toBe(15);
  });

  it('starts past what the previous consumer settled and passes over what it settled beyond', async () => {
    const { core, run, end, started } = setup(10, { before: 12, ahead: [13, 15] });
    expect(core.next).toBe(12);
    // Settled beyond the ledger and not committed yet: due without the quiet period.
    expect(core.commitDue(Date.now(), 10_000)).toBe(12);
    run(12);
    expect(core.passSettled(13)).toBe(true);
    expect(core.passSettled(14)).toBe(false);
    run(14);
    expect(core.passSettled(15)).toBe(true);
    expect(started).toEqual([12, 14]);
    await end(14);
    expect(core.settled()).toEqual({ before: 12, ahead: [13, 14, 15] });
    await end(12);
    expect(core.commitTarget()).toBe(16);
  });

  it('with ordering key, a record starts only after the previous one of its key ended', async () => {
    const { run, end, started } = setup(0, null, 'key');
    run(0, 'k');
    run(1, 'k');
    run(2, 'other');
    expect(started).toEqual([0, 2]);
    await end(0);
    expect(started).toEqual([0, 2, 1]);
  });
});
