import { describe, expect, it } from 'vitest';
import type { BenchResult } from '../src/push-bench.ts';
import { ingressTargets, singleCeiling } from '../src/section-ingress.ts';
import { pushTargets } from '../src/section-push.ts';
import { type BenchRow, summarize } from '../src/stats.ts';

const withCpu = (row: BenchRow, cpuMicrosPerEvent: number | undefined): BenchRow =>
  cpuMicrosPerEvent === undefined ? row : { ...row, cpuMicrosPerEvent };

function ingressResult(bareCpu: number | undefined, kafkaCpu: number | undefined) {
  const raw = summarize('raw kafkajs sendBatch', 2, 500, [1], 40_000, 0, 1000);
  return {
    topic: 't',
    rows: [withCpu(summarize('HTTP', 128, 1, [1], 9000, 0, 1000), 100)],
    raw,
    rawWithHeaders: withCpu(raw, kafkaCpu),
    bareHttp: withCpu(summarize('bare node:http server (parse, 202)', 128, 1, [1], 30_000, 0, 1000), bareCpu),
    singleRatio: 0.23,
    bestRatio: 0.23,
    bestRatioSameHeaders: 0.23,
  };
}

describe('the ceilings beside the targets', () => {
  it('puts the ingress one per request at most bare ÷ (bare + kafkajs per record) of the bare server', () => {
    const result = ingressResult(30, 20);
    expect(singleCeiling(result)?.ratio).toBeCloseTo(0.6, 5);
    const single = ingressTargets(result).find((t) => t.target.includes('one event per request'));
    expect(single?.measured).toBe(
      "0.30× (9,000 against 30,000 events/s; one event per request, concurrency 128); ceiling 0.60×: the bare server's 30 µs per request + kafkajs's 20 µs per record",
    );
    expect(single?.met).toBe(false);
  });

  it('names no ingress ceiling when either CPU figure is missing', () => {
    for (const result of [ingressResult(undefined, 20), ingressResult(30, undefined)]) {
      expect(singleCeiling(result)).toBeUndefined();
      const single = ingressTargets(result).find((t) => t.target.includes('one event per request'));
      expect(single?.measured).not.toContain('ceiling');
    }
  });

  it("puts the pusher against the plain loop at most the consume → POST loop's own share", () => {
    // Only what the targets read; the rounds' details are other tests' business.
    const result = {
      pusherPerSecond: 12_000,
      rawUndiciPerSecond: 40_000,
      ratio: 0.3,
      loop: { ratio: 0.5, baselinePerSecond: 28_000, comparedPerSecond: 14_000 },
    } as unknown as BenchResult;
    const plain = pushTargets(result).find((t) => t.target.includes('plain undici loop'));
    expect(plain?.measured).toBe(
      "0.30× (40,000 POSTs/s raw); ceiling 0.70×: the consume → POST → commit loop's own rate",
    );
    const none = { ...result, loop: { ...result.loop, baselinePerSecond: 0 } } as BenchResult;
    expect(pushTargets(none).find((t) => t.target.includes('plain'))?.measured).toBe(
      '0.30× (40,000 POSTs/s raw)',
    );
  });
});
