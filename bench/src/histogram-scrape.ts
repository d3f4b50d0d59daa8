/**
 * One Prometheus histogram series, read from a /metrics text exposition: its cumulative bucket
 * counts by upper bound (seconds; +Inf last). The series is the one whose labels include every
 * label asked for; an absent series reads as no buckets.
 */
export function histogramBuckets(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>>,
): Map<number, number> {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const buckets = new Map<number, number>();
  const prefix = `${name}_bucket{`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const close = line.lastIndexOf('}');
    const labelText = line.slice(prefix.length, close);
    if (!wanted.every((w) => labelText.includes(w))) continue;
    const le = /(?:^|,)le="([^"]+)"/.exec(labelText)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    const count = Number(
      line
        .slice(close + 1)
        .trim()
        .split(' ')[0],
    );
    if (!Number.isNaN(bound) && Number.isFinite(count)) buckets.set(bound, count);
  }
  return new Map([...buckets].sort((a, b) => a[0] - b[0]));
}

/** What was observed between two reads of the same series: `after` minus `before`, per bucket. */
export function bucketsSince(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): Map<number, number> {
  return new Map([...after].map(([bound, count]) => [bound, count - (before.get(bound) ?? 0)]));
}

/**
 * The upper bound, in ms, of the bucket holding quantile `q` of cumulative `buckets`: the value
 * is at most this. Infinity when it lies past the last finite bound; null without observations.
 */
export function bucketQuantileMs(buckets: ReadonlyMap<number, number>, q: number): number | null {
  const total = [...buckets.values()].at(-1) ?? 0;
  if (total <= 0) return null;
  const rank = Math.ceil(q * total);
  for (const [bound, count] of buckets) if (count >= rank) return bound * 1000;
  return Number.POSITIVE_INFINITY;
}

/** A bucket bound as a figure: "≤ 5" (ms); past the last bound, "> last bucket"; nothing observed, "–". */
export function atMost(ms: number | null): string {
  if (ms === null) return '–';
  return Number.isFinite(ms) ? `≤ ${ms}` : '> last bucket';
}
