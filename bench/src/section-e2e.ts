import { baselinesFrom } from './baselines.ts';
import { type E2eBenchResult, runE2eBench } from './e2e-bench.ts';
import { atMost } from './histogram-scrape.ts';
import { defineSection } from './report-section.ts';
import type { LatencySummary } from './stats.ts';

export const e2eSection = defineSection<E2eBenchResult>({
  id: 'e2e',
  title: 'End to end: ingress → Kafka → pusher → receiver',
  method:
    'The real ingress and a real pusher, each in its own process, deliver to the sample receiver ' +
    "(signature check, dedupe) on a thread of the benchmark's process, so publish and arrival times " +
    'come from one clock and the load generator and the receiver do not wait for each other. First the maximum load: ~1 KiB events, one per request, from 64 keep-alive ' +
    'connections as fast as they are answered, timed from the first publish to the last arrival. ' +
    'Then half that rate, paced on a fixed schedule (open loop: a slow answer does not delay the ' +
    'next publish); latency = arrival at the receiver − scheduled publish time. Beside the maximum load: the ' +
    "ingress's and the pusher's process CPU (/proc) over that run until the last arrival ÷ events delivered, and " +
    'their peak RSS growth over it ÷ the requests in flight (64), KiB; the receiver and load generator are the ' +
    "benchmark's process and are not counted. The ingress serves /metrics (as deployed), and its own histogram " +
    'of request received → acks=all, read before and after the paced run, gives the part of written → 202 ' +
    'spent inside it, as the bounds of the buckets holding p50, p90 and p99.',
  run: (ctx) =>
    runE2eBench({
      connection: ctx.connection,
      events: ctx.scale.e2eEvents,
      halfLoadSeconds: ctx.scale.halfLoadSeconds,
      progress: ctx.progress,
    }),
  figures: (r, ctx) => [
    {
      id: 'e2e.max.rate',
      label: 'end to end, maximum load',
      value: r.maxLoad.eventsPerSecond,
      unit: 'events/s',
      baselines: baselinesFrom(
        ctx,
        ['ingress.single.rate', 'ingress alone, one event per request'],
        ['push.rate', 'pusher alone'],
        ['kafka.producer.rate', 'kafka-producer-perf-test'],
      ),
    },
    {
      id: 'e2e.max.cpu',
      label: `ingress + pusher process CPU per event at maximum load (${r.maxLoad.ingressCpuMicrosPerEvent} + ${r.maxLoad.pusherCpuMicrosPerEvent} µs)`,
      value: Math.round((r.maxLoad.ingressCpuMicrosPerEvent + r.maxLoad.pusherCpuMicrosPerEvent) * 10) / 10,
      unit: 'µs',
      baselines: baselinesFrom(
        ctx,
        ['ingress.single.cpu', 'ingress alone, per event'],
        ['push.cpu', 'pusher alone, per delivery'],
      ),
    },
    {
      id: 'e2e.max.memory',
      label: `ingress + pusher peak RSS growth per request in flight at maximum load (${r.maxLoad.ingressRssKiBPerInFlight} + ${r.maxLoad.pusherRssKiBPerInFlight} KiB)`,
      value: Math.round((r.maxLoad.ingressRssKiBPerInFlight + r.maxLoad.pusherRssKiBPerInFlight) * 10) / 10,
      unit: 'KiB',
      baselines: [],
    },
    {
      id: 'e2e.half.p50',
      label: `ingress→endpoint p50 at ${r.halfLoad.targetPerSecond} events/s (half load)`,
      value: r.halfLoad.latency.p50Ms,
      unit: 'ms',
      baselines: baselinesFrom(ctx, ['kafka.producer.p50', 'kafka-producer-perf-test p50 (produce only)']),
    },
    {
      id: 'e2e.half.p99',
      label: `ingress→endpoint p99 at ${r.halfLoad.targetPerSecond} events/s (half load)`,
      value: r.halfLoad.latency.p99Ms,
      unit: 'ms',
      baselines: baselinesFrom(ctx, ['kafka.producer.p99', 'kafka-producer-perf-test p99 (produce only)']),
    },
  ],
  targets: (r) => [
    {
      target: 'end-to-end p50 ≤ 10 ms at half load',
      measured: `${r.halfLoad.latency.p50Ms} ms at ${r.halfLoad.targetPerSecond} events/s`,
      met: r.halfLoad.latency.count > 0 && r.halfLoad.latency.p50Ms <= 10,
    },
    {
      target: 'end-to-end p99 ≤ 25 ms at half load',
      measured: `${r.halfLoad.latency.p99Ms} ms at ${r.halfLoad.targetPerSecond} events/s`,
      met: r.halfLoad.latency.count > 0 && r.halfLoad.latency.p99Ms <= 25,
    },
  ],
  chart: (r) => ({
    latency: [
      {
        label: `end to end at half load (${r.halfLoad.targetPerSecond}/s)`,
        p50Ms: r.halfLoad.latency.p50Ms,
        p99Ms: r.halfLoad.latency.p99Ms,
      },
    ],
    throughput: [{ label: 'end to end, maximum load', perSecond: r.maxLoad.eventsPerSecond }],
  }),
  details: (r) =>
    `Maximum load: ${r.maxLoad.delivered} of ${r.maxLoad.events} events arrived in ${r.maxLoad.seconds} s. ` +
    `Half load: ${r.halfLoad.delivered} of ${r.halfLoad.events} events arrived ` +
    `(${r.halfLoad.publishErrors} publishes refused); latency p50 ${r.halfLoad.latency.p50Ms} ms, ` +
    `p90 ${r.halfLoad.latency.p90Ms} ms, p99 ${r.halfLoad.latency.p99Ms} ms, max ${r.halfLoad.latency.maxMs} ms. ` +
    `Redeliveries seen by the receiver: ${r.duplicates}.\n\n` +
    'Where the half-load latency goes, per event (each part on its own: the p99 of a sum is not the sum of p99s):\n\n' +
    '| part | p50 ms | p90 ms | p99 ms | max ms |\n| --- | ---: | ---: | ---: | ---: |\n' +
    latencyRows(r.halfLoad).join('\n'),
});

/** The breakdown's rows: measured parts, and the ingress's share read from its histogram's buckets. */
function latencyRows(half: E2eBenchResult['halfLoad']): string[] {
  const row = (part: string, l: LatencySummary) =>
    `| ${part} | ${l.p50Ms} | ${l.p90Ms} | ${l.p99Ms} | ${l.maxMs} |`;
  const i = half.inIngress;
  return [
    row('scheduled publish → arrival (the figure)', half.latency),
    row("scheduled publish → the ingress's 202 (HTTP, validation, acks=all)", half.untilAccepted),
    row('  of which scheduled → the request written (the load generator)', half.untilWritten),
    row("  and written → the ingress's 202", half.writtenToAccepted),
    `|     of which inside the ingress (received → acks=all; its histogram's bucket bounds) | ${atMost(i.p50AtMostMs)} | ${atMost(i.p90AtMostMs)} | ${atMost(i.p99AtMostMs)} | – |`,
    row('202 → arrival (fetch, delivery)', half.acceptedToArrival),
  ];
}
