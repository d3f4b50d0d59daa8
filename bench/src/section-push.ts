import { baselinesFrom } from './baselines.ts';
import type { ModeComparison } from './mode-comparison.ts';
import { type BenchResult, benchPush, HTTPS_PAYLOAD_BYTES } from './push-bench.ts';
import { defineSection, type Figure, type TargetCheck } from './report-section.ts';
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
    "backlog; the figures are the medians of the rounds. The consume → POST → commit loop's rate over the plain " +
    "loop's is the ceiling beside the plain-loop target: the pusher does all that loop does, and more. " +
    'Tracing: the pusher then drains the backlog again with new subscribers, with tracing at 100 % ' +
    'sampling (spans exported over OTLP/HTTP protobuf to the local Jaeger) and without, interleaved ' +
    '(on off, off on, …), after a traced and an untraced warm-up drain that are listed but not counted (the first ' +
    'compiles the tracing code, the second re-optimizes the code both modes share); CPU per delivery is `process.cpuUsage()` (user + system, every thread of the ' +
    "benchmark's process: the pusher's event loop, its garbage collection, the libuv pool and the span " +
    "export, not the endpoint's or Jaeger's processes) from the group's first fetch until the last delivery " +
    'and, when traced, the last spans handed to the exporter, divided by the deliveries. Medians of the runs. ' +
    'Beside every throughput, in the same rounds: CPU per delivery (per POST for the loops), `process.cpuUsage()` of ' +
    "the benchmark's process over the drain ÷ deliveries, and memory per request in flight: the peak V8 heap used " +
    'during the drain (sampled every 10 ms) minus the heap used at its start, ÷ the requests in flight (the ' +
    'concurrency), KiB; garbage not yet collected counts, so it is an upper bound of what a request holds. ' +
    `HTTPS: the pusher drains a backlog of events with a ${HTTPS_PAYLOAD_BYTES / 1024} KiB payload to a no-op https ` +
    "endpoint in its own process (a self-signed certificate made at run time, trusted through Node's CA store as an " +
    "operator's NODE_EXTRA_CA_CERTS would add it; verification on), against the plain undici loop POSTing bodies " +
    'of the same size over https to it, interleaved likewise.',
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
        httpsEvents: ctx.scale.httpsEvents,
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
    {
      id: 'push.cpu',
      label: `pusher CPU per delivery, median of ${result.rate.runs} rounds`,
      value: result.rate.comparedCpuMicros,
      unit: 'µs',
      baselines: [
        { label: 'plain undici loop, per POST', value: result.rate.baselineCpuMicros },
        { label: 'consume → POST → commit loop, per delivery', value: result.loop.baselineCpuMicros },
      ],
    },
    ...memoryFigure('push.memory', 'pusher', result.rate, [
      ['plain undici loop', result.rate.baselineHeapKiB],
      ['consume → POST → commit loop', result.loop.baselineHeapKiB],
    ]),
    ...(result.https
      ? ([
          {
            id: 'push.https.rate',
            label: `pusher over https, ${result.https.payloadBytes / 1024} KiB events, concurrency ${result.concurrency}`,
            value: result.https.comparedPerSecond,
            unit: 'deliveries/s',
            baselines: [
              { label: 'plain undici loop, https, same body size', value: result.https.baselinePerSecond },
            ],
          },
          {
            id: 'push.https.cpu',
            label: `pusher CPU per delivery over https, ${result.https.payloadBytes / 1024} KiB events`,
            value: result.https.comparedCpuMicros,
            unit: 'µs',
            baselines: [
              { label: 'plain undici loop, https, per POST', value: result.https.baselineCpuMicros },
            ],
          },
          ...memoryFigure('push.https.memory', 'pusher over https', result.https, [
            ['plain undici loop, https', result.https.baselineHeapKiB],
          ]),
        ] satisfies Figure[])
      : []),
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
  targets: pushTargets,
  details: (result) =>
    `Deliveries per second, every counted run (${result.events.toLocaleString('en-US')} events each, in the order they ran):\n\n` +
    `${rateRunsMarkdown(result.rate)}\n\n` +
    `Against the consume → POST → commit loop, every counted run:\n\n${rateRunsMarkdown(result.loop)}\n\n` +
    (result.https
      ? `Over https, ${result.https.payloadBytes / 1024} KiB events, every counted run (${result.https.events.toLocaleString('en-US')} events each):\n\n` +
        `${rateRunsMarkdown(result.https)}\n\n`
      : '') +
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
      ...(result.https
        ? [
            {
              label: `pusher, https, ${result.https.payloadBytes / 1024} KiB`,
              perSecond: result.https.comparedPerSecond,
              baseline: { label: 'plain undici loop, https', value: result.https.baselinePerSecond },
            },
          ]
        : []),
    ],
  }),
});

/**
 * The consume → POST → commit loop's own rate against the plain loop's: as far as anything that
 * consumes with kafkajs can get, since the pusher does all the loop does and more.
 */
function loopCeilingNote(result: BenchResult): string {
  if (result.rawUndiciPerSecond <= 0 || result.loop.baselinePerSecond <= 0) return '';
  const ceiling = result.loop.baselinePerSecond / result.rawUndiciPerSecond;
  return `; ceiling ${ceiling.toFixed(2)}×: the consume → POST → commit loop's own rate`;
}

/** +7.9 %, −3.0 %. */
function signedPercent(share: number): string {
  const value = (share * 100).toFixed(1);
  return share < 0 ? `−${value.slice(1)} %` : `+${value} %`;
}

/** One row per round: the baseline's and the pusher's rate, CPU and memory, as they ran. */
function rateRunsMarkdown(comparison: ModeComparison<string>): string {
  const rows = comparison.all.map(
    (r) =>
      `| ${r.mode} | ${r.perSecond.toLocaleString('en-US')} | ${r.cpuMicrosPerDelivery} | ${r.heapKiBPerInFlight ?? '–'} |`,
  );
  return [
    '| run | per second | CPU µs per POST or delivery | heap KiB per request in flight |',
    '| --- | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

/**
 * The memory-per-request-in-flight figure of a comparison's compared mode, beside its baselines;
 * none when the drains did not measure it.
 */
function memoryFigure(
  id: string,
  who: string,
  comparison: ModeComparison<string>,
  baselines: readonly (readonly [label: string, value: number | null])[],
): Figure[] {
  if (comparison.comparedHeapKiB === null) return [];
  return [
    {
      id,
      label: `${who}, peak heap growth per request in flight, median of ${comparison.runs} rounds`,
      value: comparison.comparedHeapKiB,
      unit: 'KiB',
      baselines: baselines.flatMap(([label, value]) => (value === null ? [] : [{ label, value }])),
    },
  ];
}

/** The section's targets, each with what this run measured. */
export function pushTargets(result: BenchResult): TargetCheck[] {
  return [
    {
      target: 'push ≥ 5,000 deliveries/s',
      measured: `${result.pusherPerSecond.toLocaleString('en-US')} deliveries/s`,
      met: result.pusherPerSecond >= 5000,
    },
    {
      target: 'push ≥ 0.70× a plain undici loop',
      measured:
        `${result.ratio.toFixed(2)}× (${result.rawUndiciPerSecond.toLocaleString('en-US')} POSTs/s raw)` +
        loopCeilingNote(result),
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
  ];
}
