import { quantile } from './stats.ts';

/** Where the unused part of a limit went: the gaps between consecutive arrivals at the endpoint. */
export interface ArrivalGaps {
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Time lost to gaps longer than twice the interval (stalls), beyond one interval each. */
  readonly stalledMs: number;
}

/** Gaps between the sorted arrival times (ms); `intervalMs` is one request's share at the limit. */
export function arrivalGaps(timesMs: readonly number[], intervalMs: number): ArrivalGaps {
  const sorted = [...timesMs].sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((t, i) => t - (sorted[i] ?? t));
  const stalled = gaps.filter((g) => g > 2 * intervalMs).reduce((sum, g) => sum + g - intervalMs, 0);
  gaps.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    medianMs: round(quantile(gaps, 0.5)),
    p99Ms: round(quantile(gaps, 0.99)),
    maxMs: round(gaps.at(-1) ?? 0),
    stalledMs: round(stalled),
  };
}
