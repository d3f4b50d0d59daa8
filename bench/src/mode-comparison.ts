import { type ThreadCpu, threadCpuOf } from './proc-usage.ts';
import { quantile } from './stats.ts';
import type { DrainMeasure } from './tracing-cost.ts';

export interface ModeRun<M extends string> {
  readonly mode: M;
  readonly perSecond: number;
  readonly cpuMicrosPerDelivery: number;
  /**
   * Memory per request in flight: the drain's peak heap growth ÷ its requests in flight, KiB
   * (DrainMeasure.heapGrowthBytes); null when the drain did not measure it.
   */
  readonly heapKiBPerInFlight: number | null;
  /** CPU per delivery by thread (µs, one decimal); null when the drain could not say. */
  readonly cpuSplit: ThreadCpu | null;
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
  /** Medians of heapKiBPerInFlight over the runs that measured it; null when none did. */
  readonly baselineHeapKiB: number | null;
  readonly comparedHeapKiB: number | null;
  /**
   * Medians of each part of cpuSplit over the runs that measured it, µs per delivery: where the
   * CPU went (the main thread's own work, its syscalls, the other threads); null when none did.
   */
  readonly baselineCpuSplit: ThreadCpu | null;
  readonly comparedCpuSplit: ThreadCpu | null;
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
      heapKiBPerInFlight:
        m.heapGrowthBytes === undefined || !m.inFlight
          ? null
          : Math.round((m.heapGrowthBytes / 1024 / m.inFlight) * 10) / 10,
      cpuSplit: m.cpuSplit === undefined ? null : perDelivery(m.cpuSplit, m.deliveries),
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
  const heapMedian = (mode: M) => {
    const measured = all
      .filter((r) => r.mode === mode)
      .flatMap((r) => (r.heapKiBPerInFlight === null ? [] : [r.heapKiBPerInFlight]))
      .sort((a, b) => a - b);
    return measured.length === 0 ? null : Math.round(quantile(measured, 0.5) * 10) / 10;
  };
  const splitMedian = (mode: M): ThreadCpu | null => {
    const splits = all.flatMap((r) => (r.mode !== mode || r.cpuSplit === null ? [] : [r.cpuSplit]));
    if (splits.length === 0) return null;
    return threadCpuOf((part) =>
      oneDecimal(
        quantile(
          splits.map((s) => s[part]).sort((a, b) => a - b),
          0.5,
        ),
      ),
    );
  };
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
    baselineHeapKiB: heapMedian(baseline),
    comparedHeapKiB: heapMedian(compared),
    baselineCpuSplit: splitMedian(baseline),
    comparedCpuSplit: splitMedian(compared),
    all,
  };
}

function oneDecimal(value: number): number {
  return Math.round(value * 10) / 10;
}

function perDelivery(split: ThreadCpu, deliveries: number): ThreadCpu {
  return threadCpuOf((part) => oneDecimal(split[part] / deliveries));
}
