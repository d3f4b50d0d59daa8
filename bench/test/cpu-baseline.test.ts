import { describe, expect, it } from 'vitest';
import {
  CPU_BASELINE_COMMAND,
  CPU_BASELINE_DEFAULTS,
  CpuBaseline,
  cpuBaselineOf,
  cpuRegressionVerdict,
  readCpuBaseline,
} from '../src/cpu-baseline.ts';

// The regression check's committed baseline (test/exclusive/push-cpu-regression.test.ts reads it).
describe('the CPU baseline', () => {
  it('is committed, well formed, and measured with the load the check measures with', async () => {
    const baseline = await readCpuBaseline();
    expect([baseline.events, baseline.rounds]).toEqual([
      CPU_BASELINE_DEFAULTS.events,
      CPU_BASELINE_DEFAULTS.rounds,
    ]);
    expect(baseline.command).toBe(CPU_BASELINE_COMMAND);
    // Its ratio is its medians' (two decimals), so the file cannot be hand-edited into disagreement.
    expect(baseline.ratio).toBeCloseTo(baseline.pusherCpuMicros / baseline.loopCpuMicros, 1);
  });

  it('records a measurement as --write does', () => {
    const record = cpuBaselineOf(
      {
        events: 5000,
        rounds: 1,
        concurrency: 64,
        pusherCpuMicros: 75,
        loopCpuMicros: 25,
        ratio: 3,
        runs: [
          {
            mode: 'plain undici loop',
            perSecond: 1,
            cpuMicrosPerDelivery: 25,
            heapKiBPerInFlight: 1,
            cpuSplit: null,
          },
          { mode: 'pusher', perSecond: 1, cpuMicrosPerDelivery: 75, heapKiBPerInFlight: 2, cpuSplit: null },
        ],
      },
      new Date('2026-12-07T12:00:00Z'),
    );
    expect(CpuBaseline.parse(record)).toMatchObject({ ratio: 3, measuredAt: '2026-12-07T12:00:00.000Z' });
  });

  it('allows the baseline × 1.6 and no more', () => {
    expect(cpuRegressionVerdict({ ratio: 4.8 }, { ratio: 3 })).toEqual({ allowed: 4.8, within: true });
    expect(cpuRegressionVerdict({ ratio: 4.81 }, { ratio: 3 }).within).toBe(false);
  });
});
