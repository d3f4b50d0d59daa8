import { describe, expect, it } from 'vitest';
import { OffsetTracker } from '../../../src/consume/ledger/offset-tracker.ts';

function tracker(...offsets: number[]): OffsetTracker {
  const t = new OffsetTracker();
  for (const o of offsets) t.begin(o);
  return t;
}

describe('OffsetTracker', () => {
  it('commits nothing until the first record settles', () => {
    const t = tracker(0, 1, 2);
    expect(t.committable).toBeNull();
    expect(t.settle(1)).toBeNull();
    expect(t.settle(2)).toBeNull();
    expect(t.committable).toBeNull();
    expect(t.unsettled).toBe(1);
  });

  it('advances over every record settled ahead once the head settles', () => {
    const t = tracker(0, 1, 2, 3);
    t.settle(2);
    t.settle(1);
    expect(t.settle(0)).toBe(2);
    expect(t.committable).toBe(2);
    expect(t.unsettled).toBe(1);
    expect(t.settle(3)).toBe(3);
    expect(t.unsettled).toBe(0);
  });

  it('does not let gaps in the offsets hold the prefix back', () => {
    const t = tracker(10, 13, 20);
    expect(t.settle(10)).toBe(10);
    expect(t.settle(20)).toBeNull();
    expect(t.settle(13)).toBe(20);
  });

  it('refuses offsets out of order, unknown offsets and double settlement', () => {
    const t = tracker(5, 6);
    expect(() => t.begin(6)).toThrow(RangeError);
    expect(() => t.begin(4)).toThrow(RangeError);
    expect(() => t.settle(7)).toThrow(RangeError);
    t.settle(6);
    expect(() => t.settle(6)).toThrow(RangeError);
    t.settle(5);
    expect(() => t.settle(5)).toThrow(RangeError);
    expect(() => t.begin(6)).toThrow(RangeError);
    t.begin(7);
  });

  it('matches a brute-force model for every settle order of small batches', () => {
    const permutations = (xs: number[]): number[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    const offsets = [3, 4, 6, 7, 9];
    for (const order of permutations(offsets)) {
      const t = tracker(...offsets);
      const settled = new Set<number>();
      for (const o of order) {
        settled.add(o);
        const returned = t.settle(o);
        let expected: number | null = null;
        for (const x of offsets) {
          if (!settled.has(x)) break;
          expected = x;
        }
        expect(t.committable).toBe(expected);
        // A value is returned exactly when this call moved the prefix.
        if (returned !== null) expect(returned).toBe(expected);
      }
      expect(t.committable).toBe(9);
    }
  });

  it('stays correct over a long partition with random settle order (compaction path)', () => {
    const t = new OffsetTracker();
    const open: number[] = [];
    let next = 0;
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const lowestOpen = () => Math.min(...open);
    for (let round = 0; round < 20_000; round++) {
      if (open.length < 50 && rand() < 0.6) {
        t.begin(next);
        open.push(next++);
      } else if (open.length > 0) {
        const [o] = open.splice(Math.floor(rand() * open.length), 1);
        t.settle(o ?? -1);
        const expected = open.length === 0 ? next - 1 : lowestOpen() - 1;
        expect(t.committable === null ? -1 : t.committable).toBe(expected);
      }
    }
    expect(t.unsettled).toBe(open.length);
  });
});
