import { defineSection } from './report-section.ts';
import { benchRetryLateness, type RetryLatenessResult } from './retry-lateness-bench.ts';

/** The subscriber default, so the figure is what a subscriber gets out of the box. */
const JITTER = 0.2;

export const retrySection = defineSection<RetryLatenessResult>({
  id: 'retry',
  title: 'Retry-tier lateness',
  method:
    `Every event fails once per tier (503) before the endpoint accepts it, so each passes through every ` +
    `tier; jitter ${JITTER} (the subscriber default). Lateness = when the attempt from a tier reached ` +
    'the endpoint − the due time written in its tier record (negative would be early). No raw baseline: ' +
    'the due time itself is the reference.',
  run: (ctx) =>
    benchRetryLateness(
      {
        connection: ctx.connection,
        records: ctx.scale.retryRecords,
        tiersMs: ctx.scale.retryTiersMs,
        jitter: JITTER,
      },
      ctx.progress,
    ),
  figures: (result) =>
    result.tiers.flatMap((t) => [
      {
        id: `retry.tier${t.tier}.p99`,
        label: `tier ${t.tier} (${t.delayMs} ms), ${t.records} retries: lateness p99`,
        value: t.p99Ms,
        unit: 'ms',
        baselines: [],
      },
    ]),
  targets: (result) =>
    result.tiers.flatMap((t) => [
      {
        target: `retry lateness p99 ≤ 50 ms (tier ${t.tier}, ${t.delayMs} ms)`,
        measured: `p99 ${t.p99Ms} ms`,
        met: t.records > 0 && t.p99Ms <= 50,
      },
      {
        target: `no retry before its due time (tier ${t.tier})`,
        measured: `earliest ${t.minMs} ms`,
        met: t.minMs >= 0,
      },
    ]),
  chart: (result) => ({
    latency: result.tiers.map((t) => ({
      label: `retry tier ${t.tier} lateness`,
      p50Ms: t.p50Ms,
      p99Ms: t.p99Ms,
    })),
  }),
  details: (result) =>
    [
      '| tier | delay | retries | min | p50 | p90 | p99 | max |',
      '|---|---|---|---|---|---|---|---|',
      ...result.tiers.map(
        (t) =>
          `| ${t.tier} | ${t.delayMs} ms | ${t.records} | ${t.minMs} ms | ${t.p50Ms} ms | ${t.p90Ms} ms | ${t.p99Ms} ms | ${t.maxMs} ms |`,
      ),
      '',
      `Attempts the endpoint saw twice (redeliveries): ${result.redeliveries}.`,
    ].join('\n'),
});
