import { baselinesFrom } from './baselines.ts';
import { formatIngressBench } from './format.ts';
import { type IngressBenchResult, runIngressBench } from './ingress-bench.ts';
import { defineSection, type Figure, ratio, type TargetCheck } from './report-section.ts';
import type { BenchRow } from './stats.ts';

const best = (rows: readonly BenchRow[]): BenchRow | undefined =>
  [...rows].sort((a, b) => b.eventsPerSecond - a.eventsPerSecond)[0];

const modeLabel = (row: BenchRow) =>
  row.eventsPerCall === 1
    ? `one event per request, concurrency ${row.concurrency}`
    : `batches of ${row.eventsPerCall}, concurrency ${row.concurrency}`;

export const ingressSection = defineSection<IngressBenchResult>({
  id: 'ingress',
  title: 'Ingress: HTTP → Kafka',
  method:
    'The ingress in its own process takes ~1 KiB `shipment.updated` events over keep-alive HTTP ' +
    '(one event per request at concurrency 8, 32, 128; batches of 50 at 4 and 16), validates them, ' +
    'Avro-encodes them and answers 202 once Kafka acknowledged (acks=all). Latency is per request. ' +
    'Baselines: a raw kafkajs `sendBatch` loop (500 records of 1 KiB per batch, 2 in flight, acks=all; ' +
    'the better of a run before and after the HTTP runs), the same loop with the seven CloudEvents headers ' +
    'the ingress writes, `kafka-producer-perf-test`, and, for one event per request, a bare `node:http` ' +
    'server in its own process that only reads the body, `JSON.parse`s it and answers 202, under the same ' +
    "load at concurrency 128 after the ingress stopped. Beside each rate, from /proc of the server's process: " +
    'its CPU (user + system, every thread) over the run ÷ events, and its peak RSS during the run (sampled every ' +
    '25 ms) minus its RSS before, ÷ the requests in flight (the concurrency), KiB. RSS rarely shrinks, so a run ' +
    "after a more demanding one can show 0: the growth is beyond the process's earlier peak. The raw loops' CPU " +
    "is the benchmark's own process (`process.cpuUsage()`) while the loop runs alone. The ceiling beside the " +
    "one-event target: the ingress does at least the bare server's work per request and kafkajs's per record, so " +
    'with each process bound by one core it reaches at most bare ÷ (bare + raw kafkajs with the same headers, CPU ' +
    "per record) of the bare server's rate.",
  run: (ctx) =>
    runIngressBench({
      connection: ctx.connection,
      events: ctx.scale.ingressEvents,
      runDeadlineMs: ctx.scale.runDeadlineMs,
      report: ctx.progress,
    }),
  figures(result, ctx) {
    const rate = baselinesFrom(ctx, ['kafka.producer.rate', 'kafka-producer-perf-test']);
    const raw = { label: 'raw kafkajs sendBatch', value: result.raw.eventsPerSecond };
    const rawHeaders = { label: 'raw kafkajs, same headers', value: result.rawWithHeaders.eventsPerSecond };
    const bare = {
      label: `bare node:http server (parse, 202), concurrency ${result.bareHttp.concurrency}`,
      value: result.bareHttp.eventsPerSecond,
    };
    const figures: Figure[] = [];
    for (const [kind, rows] of [
      ['single', result.rows.filter((r) => r.eventsPerCall === 1)],
      ['batch', result.rows.filter((r) => r.eventsPerCall > 1)],
    ] as const) {
      const row = best(rows);
      if (!row) continue;
      figures.push(
        {
          id: `ingress.${kind}.rate`,
          label: `ingress, ${modeLabel(row)}`,
          value: row.eventsPerSecond,
          unit: 'events/s',
          baselines: kind === 'single' ? [bare, raw, rawHeaders, ...rate] : [rawHeaders, raw, ...rate],
        },
        {
          id: `ingress.${kind}.p50`,
          label: `ingress p50, ${modeLabel(row)}`,
          value: row.p50Ms,
          unit: 'ms',
          baselines: [{ label: 'raw kafkajs sendBatch p50 (per batch)', value: result.raw.p50Ms }],
        },
        {
          id: `ingress.${kind}.p99`,
          label: `ingress p99, ${modeLabel(row)}`,
          value: row.p99Ms,
          unit: 'ms',
          baselines: [{ label: 'raw kafkajs sendBatch p99 (per batch)', value: result.raw.p99Ms }],
        },
      );
      // The ingress's own process, from /proc, in the run of the rate above; the bare server's
      // the same way for one event per request; the raw kafkajs loop's is the benchmark's own
      // process while it runs alone (no HTTP load then): what kafkajs alone costs per record.
      const bareToo = kind === 'single';
      if (row.cpuMicrosPerEvent !== undefined)
        figures.push({
          id: `ingress.${kind}.cpu`,
          label: `ingress process CPU per event, ${modeLabel(row)}`,
          value: row.cpuMicrosPerEvent,
          unit: 'µs',
          baselines: [
            ...(bareToo && result.bareHttp.cpuMicrosPerEvent !== undefined
              ? [{ label: 'bare node:http server, per request', value: result.bareHttp.cpuMicrosPerEvent }]
              : []),
            ...(result.rawWithHeaders.cpuMicrosPerEvent !== undefined
              ? [
                  {
                    label: 'raw kafkajs, same headers, per record',
                    value: result.rawWithHeaders.cpuMicrosPerEvent,
                  },
                ]
              : []),
          ],
        });
      if (row.rssKiBPerInFlight !== undefined)
        figures.push({
          id: `ingress.${kind}.memory`,
          label: `ingress RSS growth per request in flight, ${modeLabel(row)}`,
          value: row.rssKiBPerInFlight,
          unit: 'KiB',
          baselines:
            bareToo && result.bareHttp.rssKiBPerInFlight !== undefined
              ? [{ label: 'bare node:http server', value: result.bareHttp.rssKiBPerInFlight }]
              : [],
        });
    }
    return figures;
  },
  targets: ingressTargets,
  chart(result) {
    const rows = [
      best(result.rows.filter((r) => r.eventsPerCall === 1)),
      best(result.rows.filter((r) => r.eventsPerCall > 1)),
    ];
    const present = rows.filter((r): r is BenchRow => r !== undefined);
    const bare = { label: 'bare node:http server', value: result.bareHttp.eventsPerSecond };
    const rawHeaders = { label: 'raw kafkajs, same headers', value: result.rawWithHeaders.eventsPerSecond };
    return {
      latency: [
        ...present.map((r) => ({ label: `ingress (${modeLabel(r)})`, p50Ms: r.p50Ms, p99Ms: r.p99Ms })),
        {
          label: 'raw kafkajs sendBatch (per batch of 500)',
          p50Ms: result.raw.p50Ms,
          p99Ms: result.raw.p99Ms,
        },
      ],
      throughput: present.map((r) => ({
        label: `ingress (${modeLabel(r)})`,
        perSecond: r.eventsPerSecond,
        baseline: r.eventsPerCall === 1 ? bare : rawHeaders,
      })),
    };
  },
  details: (result) => `Every run:\n\n\`\`\`\n${formatIngressBench(result)}\n\`\`\``,
});

/**
 * What one event per request could reach at best against the bare server when each process is
 * bound by its own CPU: the ingress does at least the bare server's work per request plus the
 * producer's per record, so bare ÷ (bare + raw kafkajs with the same headers), from this run.
 */
export function singleCeiling(
  result: Pick<IngressBenchResult, 'bareHttp' | 'rawWithHeaders'>,
): { ratio: number; bareMicros: number; kafkaMicros: number } | undefined {
  const bareMicros = result.bareHttp.cpuMicrosPerEvent;
  const kafkaMicros = result.rawWithHeaders.cpuMicrosPerEvent;
  if (bareMicros === undefined || kafkaMicros === undefined || bareMicros + kafkaMicros <= 0) return;
  return { ratio: bareMicros / (bareMicros + kafkaMicros), bareMicros, kafkaMicros };
}

function ceilingNote(ceiling: ReturnType<typeof singleCeiling>): string {
  if (ceiling === undefined) return '';
  return (
    `; ceiling ${ceiling.ratio.toFixed(2)}×: the bare server's ${ceiling.bareMicros} µs per request ` +
    `+ kafkajs's ${ceiling.kafkaMicros} µs per record`
  );
}

/** The section's targets, each with what this run measured. */
export function ingressTargets(result: IngressBenchResult): TargetCheck[] {
  const top = best(result.rows);
  const rate = top?.eventsPerSecond ?? 0;
  const mode = (row: BenchRow | undefined) => (row ? `; ${modeLabel(row)}` : '');
  const single = best(result.rows.filter((r) => r.eventsPerCall === 1));
  const singleShare = ratio(single?.eventsPerSecond ?? 0, result.bareHttp.eventsPerSecond);
  const batch = best(result.rows.filter((r) => r.eventsPerCall > 1));
  const batchShare = ratio(batch?.eventsPerSecond ?? 0, result.rawWithHeaders.eventsPerSecond);
  return [
    {
      target: 'ingress ≥ 10,000 events/s',
      measured: `${rate.toLocaleString('en-US')} events/s${top ? ` (${modeLabel(top)})` : ''}`,
      met: rate >= 10_000,
    },
    {
      target: 'ingress, one event per request ≥ 0.8× a bare node:http server',
      measured:
        `${singleShare.toFixed(2)}× (${(single?.eventsPerSecond ?? 0).toLocaleString('en-US')} against ` +
        `${result.bareHttp.eventsPerSecond.toLocaleString('en-US')} events/s${mode(single)})` +
        ceilingNote(singleCeiling(result)),
      met: singleShare >= 0.8,
    },
    {
      target: 'ingress batches ≥ 0.50× raw kafkajs with the same headers',
      measured:
        `${batchShare.toFixed(2)}× (${(batch?.eventsPerSecond ?? 0).toLocaleString('en-US')} against ` +
        `${result.rawWithHeaders.eventsPerSecond.toLocaleString('en-US')} events/s${mode(batch)})`,
      met: batchShare >= 0.5,
    },
  ];
}
