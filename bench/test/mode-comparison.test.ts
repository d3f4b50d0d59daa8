import { describe, expect, it } from 'vitest';
import { compareModes } from '../src/mode-comparison.ts';

describe('compareModes', () => {
  it('warms each mode once uncounted, alternates the pairs, and takes medians', async () => {
    type Mode = 'key' | 'strict';
    const asked: Mode[] = [];
    // Each drain's seconds in the order asked (the first of each is the uncounted warm-up); CPU
    // per delivery is its seconds in µs, so its median follows the same runs.
    const seconds: Record<Mode, number[]> = { key: [9, 4, 5, 3], strict: [9, 2, 1, 3] };
    const result = await compareModes<Mode>(
      ['key', 'strict'],
      async (mode) => {
        asked.push(mode);
        const s = seconds[mode].shift() ?? 1;
        return { deliveries: 8000, seconds: s, cpuMicros: 8000 * s };
      },
      3,
      () => undefined,
    );
    expect(asked).toEqual(['key', 'strict', 'key', 'strict', 'strict', 'key', 'key', 'strict']);
    // key runs: 4, 5, 3 s → 2000, 1600, 2667/s → median 2000; strict: 2, 1, 3 s → 4000, 8000, 2667 → 4000.
    expect([result.baselinePerSecond, result.comparedPerSecond, result.ratio]).toEqual([2000, 4000, 2]);
    expect([result.baselineCpuMicros, result.comparedCpuMicros]).toEqual([4, 2]);
    expect(result.all).toHaveLength(6);
  });

  it("divides each drain's heap growth by its requests in flight, KiB, and takes medians; null without", async () => {
    type Mode = 'loop' | 'pusher';
    // KiB of growth per drain in the order asked (no warm-up): loop 640, 1280, 64; pusher 6400, 3200, 9600.
    const growth: Record<Mode, number[]> = { loop: [640, 1280, 64], pusher: [6400, 3200, 9600] };
    const result = await compareModes<Mode>(
      ['loop', 'pusher'],
      async (mode) => ({
        deliveries: 100,
        seconds: 1,
        cpuMicros: 100,
        heapGrowthBytes: (growth[mode].shift() ?? 0) * 1024,
        inFlight: 64,
      }),
      3,
      () => undefined,
      false,
    );
    expect(result.all.filter((r) => r.mode === 'loop').map((r) => r.heapKiBPerInFlight)).toEqual([10, 20, 1]);
    expect([result.baselineHeapKiB, result.comparedHeapKiB]).toEqual([10, 100]);
    const unmeasured = await compareModes<Mode>(
      ['loop', 'pusher'],
      async () => ({ deliveries: 1, seconds: 1, cpuMicros: 1 }),
      1,
      () => undefined,
      false,
    );
    expect([unmeasured.baselineHeapKiB, unmeasured.comparedHeapKiB]).toEqual([null, null]);
  });

  it('divides each part of the CPU split by the deliveries and takes each part’s median; null without', async () => {
    type Mode = 'loop' | 'pusher';
    // Main-thread user µs per drain of 1,000 deliveries: loop 20k, 10k, 30k; pusher 50k, 70k, 60k.
    const user: Record<Mode, number[]> = { loop: [20_000, 10_000, 30_000], pusher: [50_000, 70_000, 60_000] };
    const result = await compareModes<Mode>(
      ['loop', 'pusher'],
      async (mode) => ({
        deliveries: 1000,
        seconds: 1,
        cpuMicros: 1,
        cpuSplit: {
          mainUserMicros: user[mode].shift() ?? 0,
          mainSystemMicros: 5_000,
          otherThreadsMicros: 2_550,
        },
      }),
      3,
      () => undefined,
      false,
    );
    expect(result.baselineCpuSplit).toEqual({
      mainUserMicros: 20,
      mainSystemMicros: 5,
      otherThreadsMicros: 2.6,
    });
    expect(result.comparedCpuSplit).toEqual({
      mainUserMicros: 60,
      mainSystemMicros: 5,
      otherThreadsMicros: 2.6,
    });
    const unmeasured = await compareModes<Mode>(
      ['loop', 'pusher'],
      async () => ({ deliveries: 1, seconds: 1, cpuMicros: 1 }),
      1,
      () => undefined,
      false,
    );
    expect([unmeasured.baselineCpuSplit, unmeasured.comparedCpuSplit]).toEqual([null, null]);
  });
});
