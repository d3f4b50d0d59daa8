import { describe, expect, it } from 'vitest';
import { parseRewindTarget, planRewind, type RewindReading } from '../src/rewind-plan.ts';

const reading = (
  partition: number,
  low: number,
  high: number,
  committed: number | null,
  extra = {},
): RewindReading => ({
  partition,
  low,
  high,
  committed,
  ...extra,
});

describe('planRewind', () => {
  it.each([
    [
      'earliest: every partition to its log start (what the topic keeps: nothing of it is gone)',
      { kind: 'earliest' as const },
      [reading(0, 0, 50, 40), reading(1, 10, 60, 60)],
      [
        { partition: 0, from: 40, to: 0, resend: 40, deleted: 0 },
        { partition: 1, from: 60, to: 10, resend: 50, deleted: 0 },
      ],
    ],
    [
      'a time: to the first offset at or after it; a ledger already before it stays (never forward)',
      { kind: 'time' as const, atMs: 1000 },
      [
        reading(0, 0, 50, 40, { atTime: 30, lowTimestampMs: 10 }),
        reading(1, 0, 60, 20, { atTime: 25, lowTimestampMs: 10 }),
      ],
      [
        { partition: 0, from: 40, to: 30, resend: 10, deleted: 0 },
        { partition: 1, from: 20, to: 20, resend: 0, deleted: 0 },
      ],
    ],
    [
      'a time before the oldest record kept: part of the range is gone, uncounted',
      { kind: 'time' as const, atMs: 1000 },
      [reading(0, 5, 50, 40, { atTime: 5, lowTimestampMs: 2000 })],
      [{ partition: 0, from: 40, to: 5, resend: 35, deleted: null }],
    ],
    [
      'offsets: below the log start goes to the log start and counts the rest as deleted; unnamed partitions stay',
      { kind: 'offsets' as const, offsets: new Map([[0, 2]]) },
      [reading(0, 5, 50, 40), reading(1, 0, 60, 60)],
      [
        { partition: 0, from: 40, to: 5, resend: 35, deleted: 3 },
        { partition: 1, from: 60, to: 60, resend: 0, deleted: 0 },
      ],
    ],
    [
      'a partition without a ledger is not moved forward, whatever the target (it starts from its log start)',
      { kind: 'offsets' as const, offsets: new Map([[0, 30]]) },
      [reading(0, 5, 50, null), reading(1, 0, 60, null)],
      [
        { partition: 0, from: null, to: 5, resend: 0, deleted: 0 },
        { partition: 1, from: null, to: 0, resend: 0, deleted: 0 },
      ],
    ],
    [
      'no target moves a ledger past the end, nor forward',
      { kind: 'offsets' as const, offsets: new Map([[0, 999]]) },
      [reading(0, 0, 50, 40)],
      [{ partition: 0, from: 40, to: 40, resend: 0, deleted: 0 }],
    ],
  ])('%s', (_, target, readings, expected) => {
    const plan = planRewind(target, readings);
    expect(plan.partitions).toEqual(expected);
    expect(plan.resend).toBe(expected.reduce((n, p) => n + p.resend, 0));
    expect(plan.rangeDeleted).toBe(expected.some((p) => p.deleted === null || p.deleted > 0));
  });

  it('refuses an offset for a partition the topic does not have', () => {
    expect(() => planRewind({ kind: 'offsets', offsets: new Map([[7, 0]]) }, [reading(0, 0, 1, 1)])).toThrow(
      /partition 7 is not a partition/,
    );
  });
});

describe('parseRewindTarget', () => {
  it('reads earliest, partition:offset lists and ISO times', () => {
    expect(parseRewindTarget('earliest')).toEqual({ kind: 'earliest' });
    expect(parseRewindTarget('0:10,2:7')).toEqual({
      kind: 'offsets',
      offsets: new Map([
        [0, 10],
        [2, 7],
      ]),
    });
    expect(parseRewindTarget('2026-01-02T03:04:05Z')).toEqual({
      kind: 'time',
      atMs: Date.parse('2026-01-02T03:04:05Z'),
    });
  });

  it.each(['yesterday', '0:1,0:2', '12', '2999-01-01T00:00:00Z', '1:-3'])('refuses %s', (text) => {
    expect(() => parseRewindTarget(text)).toThrow(/--to/);
  });
});
