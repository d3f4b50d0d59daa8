import { describe, expect, it } from 'vitest';
import { atMost, bucketQuantileMs, bucketsSince, histogramBuckets } from '../src/histogram-scrape.ts';

const NAME = 'hookstream_ingress_produce_duration_seconds';

function exposition(counts: readonly number[], route = '/v1/events'): string {
  const bounds = ['0.001', '0.005', '0.025', '+Inf'];
  return [
    `# TYPE ${NAME} histogram`,
    ...bounds.map((le, i) => `${NAME}_bucket{http_route="${route}",le="${le}"} ${counts[i]}`),
    `${NAME}_bucket{http_route="/v1/events/batch",le="0.001"} 999`,
    `${NAME}_count{http_route="${route}"} ${counts.at(-1)}`,
  ].join('\n');
}

describe('histogramBuckets', () => {
  it("reads one series' cumulative buckets by bound, leaving out other series", () => {
    const buckets = histogramBuckets(exposition([1, 5, 9, 10]), NAME, { http_route: '/v1/events' });
    expect([...buckets]).toEqual([
      [0.001, 1],
      [0.005, 5],
      [0.025, 9],
      [Number.POSITIVE_INFINITY, 10],
    ]);
    expect(histogramBuckets(exposition([1, 5, 9, 10]), NAME, { http_route: '/v2' }).size).toBe(0);
  });
});

describe('bucketQuantileMs', () => {
  it('answers the bound of the bucket holding the quantile, over what was observed since a read', () => {
    const before = histogramBuckets(exposition([1, 1, 1, 1]), NAME, { http_route: '/v1/events' });
    const after = histogramBuckets(exposition([41, 91, 100, 101]), NAME, { http_route: '/v1/events' });
    const since = bucketsSince(before, after);
    // 100 observed since: 40 up to 1 ms, 90 up to 5 ms, 99 up to 25 ms, 1 beyond.
    expect(bucketQuantileMs(since, 0.4)).toBe(1);
    expect(bucketQuantileMs(since, 0.5)).toBe(5);
    expect(bucketQuantileMs(since, 0.99)).toBe(25);
    expect(bucketQuantileMs(since, 1)).toBe(Number.POSITIVE_INFINITY);
    expect(bucketQuantileMs(new Map(), 0.5)).toBeNull();
    expect([25, Number.POSITIVE_INFINITY, null].map(atMost)).toEqual(['≤ 25', '> last bucket', '–']);
  });
});
