import { quantile } from './stats.ts';
import type { DrainMeasure } from './tracing-cost.ts';

export interface ModeRun<M extends string> {
  readonly mode: M;
  readonly perSecond: number;
  readonly cpuMicrosPerDelivery: number;
}

/** Two ways of delivering one backlog (the baseline first), drains interleaved in one run. */
export interface ModeComparison<M extends string> {
  readonly baseline: M;
  readonly compared: M;
  /** Runs per mode. */
  readonly runs: number;
  /** Medians of the runs of each mode. */
  readonly baselinePerSecond: number;
  readonly comparedPerSecond: number;
  /** compared / baseline of the throughput medians. */
  readonly ratio: number;
  readonly baselineCpuMicros: number;
  readonly comparedCpuMicros: number;
  readonly all: readonly ModeRun<M>[];
}

/**
 * Drains the backlog `rounds` times in each mode, the order swapped every round (a b, b a, …)
 * so drift in the machine's load falls on both alike, after one uncounted drain of each (none
 * when `warmUp` is false: the smoke scale, where only that every drain runs matters).
 */
export async function compareModes<M extends string>(
  [baseline, compared]: readonly [M, M],
  drain: (mode: M) => Promise<DrainMeasure>,
  rounds: number,
  progress: (line: string) => void,
  warmUp = true,
): Promise<ModeComparison<M>> {
  const run = async (mode: M): Promise<ModeRun<M>> => {
    progress(`drain: ${mode}`);
    const m = await drain(mode);
    return {
      mode,
      perSecond: Math.round(m.deliveries / m.seconds),
      cpuMicrosPerDelivery: Math.round(m.cpuMicros / m.deliveries),
    };
  };
  if (warmUp) {
    await run(baseline);
    await run(compared);
  }
  const all: ModeRun<M>[] = [];
  for (let i = 0; i < rounds; i++) {
    const pair = i % 2 === 0 ? [baseline, compared] : [compared, baseline];
    for (const mode of pair) all.push(await run(mode));
  }
  const median = (mode: M, pick: (r: ModeRun<M>) => number) =>
    Math.round(
      quantile(
        all
          .filter((r) => r.mode === mode)
          .map(pick)
          .sort((a, b) => a - b),
        0.5,
      ),
    );
  const baselinePerSecond = median(baseline, (r) => r.perSecond);
  const comparedPerSecond = median(compared, (r) => r.perSecond);
  return {
    baseline,
    compared,
    runs: rounds,
    baselinePerSecond,
    comparedPerSecond,
    ratio: Math.round((comparedPerSecond / baselinePerSecond) * 1000) / 1000,
    baselineCpuMicros: median(baseline, (r) => r.cpuMicrosPerDelivery),
    comparedCpuMicros: median(compared, (r) => r.cpuMicrosPerDelivery),
    all,
  };
}
