/** What one benchmark run measured. */
export interface BenchRow {
  readonly name: string;
  readonly concurrency: number;
  /** Events per request (1 for single-event requests) or per sendBatch. */
  readonly eventsPerCall: number;
  readonly events: number;
  readonly errors: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** Latency of one call (request or sendBatch), milliseconds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The server's process CPU (/proc, all threads) over the run ÷ events, µs; absent where not measured. */
  readonly cpuMicrosPerEvent?: number;
  /** The server's peak RSS growth over the run ÷ requests in flight (the concurrency), KiB; absent likewise. */
  readonly rssKiBPerInFlight?: number;
}

/** The q-quantile (0..1) of latencies by nearest rank; 0 for none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

export function summarize(
  name: string,
  concurrency: number,
  eventsPerCall: number,
  latenciesMs: number[],
  events: number,
  errors: number,
  elapsedMs: number,
): BenchRow {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const seconds = elapsedMs / 1000;
  return {
    name,
    concurrency,
    eventsPerCall,
    events,
    errors,
    seconds: round(seconds, 2),
    eventsPerSecond: seconds > 0 ? Math.round(events / seconds) : 0,
    p50Ms: round(quantile(sorted, 0.5), 1),
    p99Ms: round(quantile(sorted, 0.99), 1),
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Latency percentiles of one run, milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export function summarizeLatencies(latenciesMs: readonly number[]): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50Ms: round(quantile(sorted, 0.5), 1),
    p90Ms: round(quantile(sorted, 0.9), 1),
    p99Ms: round(quantile(sorted, 0.99), 1),
    maxMs: round(sorted.at(-1) ?? 0, 1),
  };
}
