import { baselinesFrom } from './baselines.ts';
import { type BenchResult, benchPush } from './push-bench.ts';
import { defineSection, type Figure } from './report-section.ts';
import { tracingRunsMarkdown } from './tracing-cost.ts';

const CONCURRENCY = 64;

export const pushSection = defineSection<BenchResult>({
  id: 'push',
  title: 'Push: Kafka → subscriber endpoint',
  method:
    `One in-process pusher drains a backlog (6 partitions, Avro records with CloudEvents headers) to a ` +
    `local no-op endpoint in its own process: decode, sign, POST, settle and commit, concurrency ` +
    `${CONCURRENCY}, no rate limit. Baselines: a plain undici POST loop with the same concurrency and ` +
    'body size against the same endpoint; a hand-written consume → POST → commit loop (a kafkajs group member ' +
    "taking batches of all partitions at once, each record's value POSTed as it is with undici at the same " +
    'concurrency, a batch committed once all its POSTs were answered: no decode, signing, ledger or retry), drained ' +
    'in its own interleaved rounds with the pusher; and `kafka-consumer-perf-test` (how fast the broker hands out records). ' +
    'A pusher is a long-lived process, so both the pusher and the plain loop run once uncounted (V8 optimises the code ' +
    'of each), then in interleaved rounds (loop, pusher; pusher, loop; …), each pusher drain a new subscriber of the same ' +
    'backlog; the figures are the medians of the rounds. ' +
    'Tracing: the pusher then drains a smaller backlog again with new subscribers, with tracing at 100 % ' +
    'sampling (spans exported over OTLP/HTTP protobuf to the local Jaeger) and without, interleaved ' +
    '(on off, off on, …), after a traced and an untraced warm-up drain that are listed but not counted (the first ' +
    'compiles the tracing code, the second re-optimizes the code both modes share); CPU per delivery is `process.cpuUsage()` (user + system, every thread of the ' +
    "benchmark's process: the pusher's event loop, its garbage collection, the libuv pool and the span " +
    "export, not the endpoint's or Jaeger's processes) from the group's first fetch until the last delivery " +
    'and, when traced, the last spans handed to the exporter, divided by the deliveries. Medians of the runs.',
  run: (ctx) =>
    benchPush(
      {
        connection: ctx.connection,
        events: ctx.scale.pushEvents,
        concurrency: CONCURRENCY,
        partitions: 6,
        tracing: true,
        tracingEvents: ctx.scale.tracingEvents,
        tracingRounds: ctx.scale.tracingRounds,
        rounds: ctx.scale.pushRounds,
        warmUp: ctx.scale.warmUpDrains > 0,
      },
      ctx.progress,
    ),
  figures: (result, ctx): Figure[] => [
    {
      id: 'push.rate',
      label: `pusher, concurrency ${result.concurrency}, ${result.partitions} partitions`,
      value: result.pusherPerSecond,
      unit: 'deliveries/s',
      baselines: [
        { label: 'plain undici loop', value: result.rawUndiciPerSecond },
        { label: 'consume → POST → commit loop (kafkajs, undici)', value: result.loop.baselinePerSecond },
        ...baselinesFrom(ctx, ['kafka.consumer.rate', 'kafka-consumer-perf-test']),
      ],
    },
    ...(result.tracing
      ? ([
          {
            id: 'push.tracing.cpu',
            label: `pusher CPU per delivery, tracing on (100 % sampled), median of ${result.tracing.runs} runs`,
            value: result.tracing.onCpuMicros,
            unit: 'µs',
            baselines: [
              { label: 'the same, tracing off (interleaved runs)', value: result.tracing.offCpuMicros },
            ],
          },
        ] satisfies Figure[])
      : []),
  ],
  targets: (result) => [
    {
      target: 'push ≥ 5,000 deliveries/s',
      measured: `${result.pusherPerSecond.toLocaleString('en-US')} deliveries/s`,
      met: result.pusherPerSecond >= 5000,
    },
    {
      target: 'push ≥ 0.70× a plain undici loop',
      measured: `${result.ratio.toFixed(2)}× (${result.rawUndiciPerSecond.toLocaleString('en-US')} POSTs/s raw)`,
      met: result.ratio >= 0.7,
    },
    {
      target: 'push ≥ 0.70× a hand-written consume → POST → commit loop',
      measured: `${result.loop.ratio.toFixed(2)}× (${result.loop.baselinePerSecond.toLocaleString('en-US')} deliveries/s by the loop, ${result.loop.comparedPerSecond.toLocaleString('en-US')} by the pusher in those rounds)`,
      met: result.loop.ratio >= 0.7,
    },
    ...(result.tracing
      ? [
          {
            target: 'tracing ≤ 10 % CPU per delivery',
            measured:
              `${signedPercent(result.tracing.cpuOverhead)} (${result.tracing.onCpuMicros} µs traced, ` +
              `${result.tracing.offCpuMicros} µs untraced; medians of ${result.tracing.runs} interleaved runs each)`,
            met: result.tracing.cpuOverhead <= 0.1,
          },
        ]
      : []),
  ],
  details: (result) =>
    `Deliveries per second, every counted run (${result.events.toLocaleString('en-US')} events each, in the order they ran):\n\n` +
    `${rateRunsMarkdown(result.rate)}\n\n` +
    `Against the consume → POST → commit loop, every counted run:\n\n${rateRunsMarkdown(result.loop)}\n\n` +
    (result.tracing
      ? `Tracing, every run (${result.tracing.events.toLocaleString('en-US')} events each, in the order they ran; ` +
        `throughput ${signedPercent(-result.tracing.slowdown)} traced, means):\n\n${tracingRunsMarkdown(result.tracing)}`
      : ''),
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

/** +7.9 %, −3.0 %. */
function signedPercent(share: number): string {
  const value = (share * 100).toFixed(1);
  return share < 0 ? `−${value.slice(1)} %` : `+${value} %`;
}

/** One row per round: the baseline's and the pusher's rate, as they ran. */
function rateRunsMarkdown(comparison: BenchResult['rate'] | BenchResult['loop']): string {
  const rows = comparison.all.map(
    (r) => `| ${r.mode} | ${r.perSecond.toLocaleString('en-US')} | ${r.cpuMicrosPerDelivery} |`,
  );
  return ['| run | per second | CPU µs per POST or delivery |', '| --- | ---: | ---: |', ...rows].join('\n');
}
