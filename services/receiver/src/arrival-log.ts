/** One request as the receiver saw it; bodies and headers only when the receiver records them. */
export interface Arrival {
  readonly atMs: number;
  readonly status: number;
  readonly eventId: string | null;
  readonly subscriptionId: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Readonly<Record<string, unknown>>;
  /** A batch request's events: its webhook-id and how many events it carried. */
  readonly batchId?: string;
  readonly batchSize?: number;
}

/** Largest number of arrivals within any window of windowMs (sliding, half-open). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] ?? 0) - (sorted[lo] ?? 0) >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** Arrivals per whole second since the first one: the histogram GET /stats reports. */
export function perSecondHistogram(times: readonly number[]): number[] {
  if (times.length === 0) return [];
  const first = Math.min(...times);
  const out: number[] = [];
  for (const t of times) {
    const s = Math.floor((t - first) / 1000);
    while (out.length <= s) out.push(0);
    out[s] = (out[s] ?? 0) + 1;
  }
  return out;
}
