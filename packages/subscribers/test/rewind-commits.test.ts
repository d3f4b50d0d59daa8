import { describe, expect, it } from 'vitest';
import type { RewindPlan } from '../src/rewind-plan.ts';
import { type RewindRequest, rewindCommits } from '../src/subscriber-rewind.ts';

const now = new Date('2026-12-04T10:00:00.000Z');
const request: RewindRequest = {
  name: 'billing',
  target: { kind: 'earliest' },
  targetText: 'earliest',
  dryRun: false,
  eventsTopic: 'events',
  by: 'alice',
  now,
};

function plan(...moves: [partition: number, from: number | null, to: number][]): RewindPlan {
  return {
    partitions: moves.map(([partition, from, to]) => ({
      partition,
      from,
      to,
      resend: from === null ? 0 : from - to,
      deleted: 0,
    })),
    resend: 0,
    rangeDeleted: false,
  };
}

describe("a rewind's commits", () => {
  it('mark each moved partition up to the ledger it moved back from; a partition without a ledger is not committed', () => {
    expect(rewindCommits(plan([0, 120, 100], [1, null, 0], [2, 7, 7]), new Map(), request)).toEqual([
      { partition: 0, offset: '100', rewind: { untilOffset: 120, atMs: now.getTime(), by: 'alice' } },
      { partition: 2, offset: '7' },
    ]);
  });

  it("keep an earlier rewind's range not read yet: the mark reaches its end, and names this rewind", () => {
    const earlier = { untilOffset: 150, atMs: now.getTime() - 60_000, by: 'bob' };
    const marks = new Map([
      [0, earlier],
      [1, earlier],
      [2, { ...earlier, untilOffset: 90 }],
    ]);
    expect(rewindCommits(plan([0, 120, 100], [1, 130, 130], [2, 95, 80]), marks, request)).toEqual([
      { partition: 0, offset: '100', rewind: { untilOffset: 150, atMs: now.getTime(), by: 'alice' } },
      // Not moved: the earlier rewind's mark stays, the range is still its.
      { partition: 1, offset: '130', rewind: earlier },
      // The earlier range ended below the ledger: read already, nothing of it to keep.
      { partition: 2, offset: '80', rewind: { untilOffset: 95, atMs: now.getTime(), by: 'alice' } },
    ]);
  });
});
