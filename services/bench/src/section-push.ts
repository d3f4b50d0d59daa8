import { baselinesFrom } from './baselines.ts';
import { type BenchResult, benchPush } from './push-bench.ts';
import { defineSection } from './report-section.ts';

const CONCURRENCY = 64;

export const pushSection = defineSection<BenchResult>({
  id: 'push',
  title: 'Push: Kafka → subscriber endpoint',
  method:
    `One in-process pusher drains a backlog (6 partitions, Avro records with CloudEvents headers) to a ` +
    `local no-op endpoint in its own process: decode, sign, POST, settle and commit, concurrency ` +
    `${CONCURRENCY}, no rate limit. Baselines: a plain undici POST loop with the same concurrency and ` +
    'body size against the same endpoint, and `kafka-consumer-perf-test` (how fast the broker hands out records).',
  run: (ctx) =>
    benchPush(
      {
        brokers: ctx.brokers,
        registryUrl: ctx.registryUrl,
        events: ctx.scale.pushEvents,
        concurrency: CONCURRENCY,
        partitions: 6,
      },
      ctx.progress,
    ),
  figures: (result, ctx) => [
    {
      id: 'push.rate',
      label: `pusher, concurrency ${result.concurrency}, ${result.partitions} partitions`,
      value: result.pusherPerSecond,
      unit: 'deliveries/s',
      baselines: [
        { label: 'plain undici loop', value: result.rawUndiciPerSecond },
        ...baselinesFrom(ctx, ['kafka.consumer.rate', 'kafka-consumer-perf-test']),
      ],
    },
  ],
  targets: (result) => [
    {
      target: 'push ≥ 5,000 deliveries/s',
      measured: `${result.pusherPerSecond.toLocaleString('en-US')} deliveries/s`,
      met: result.pusherPerSecond >= 5000,
    },
    {
      target: 'push ≥ 70 % of a plain undici loop',
      measured: `${Math.round(result.ratio * 100)} %`,
      met: result.ratio >= 0.7,
    },
  ],
  chart: (result) => ({
    throughput: [
      {
        label: 'pusher (signed, committed)',
        perSecond: result.pusherPerSecond,
        baseline: { label: 'plain undici loop', value: result.rawUndiciPerSecond },
      },
    ],
  }),
});
