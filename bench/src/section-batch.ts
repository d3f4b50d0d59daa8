import { type BenchResult, benchPush } from './push-bench.ts';
import { defineSection } from './report-section.ts';

const CONCURRENCY = 64;
/** batch.maxEvents of the batched drains (`bench push --batch`'s default). */
const MAX_EVENTS = 100;
/** Issue 30: behind an endpoint answering after 20 ms, batching pays at least this much. */
const DELAYED_MS = 20;
const DELAYED_RATIO = 5;

type BatchRun = BenchResult & { readonly batch: NonNullable<BenchResult['batch']> };

const where = (delayMs: number) => (delayMs > 0 ? `endpoint answering after ${delayMs} ms` : 'loopback');

export const batchSection = defineSection<BatchRun[]>({
  id: 'batch',
  title: 'Batched delivery against one request per event',
  method:
    'One in-process pusher drains one backlog (1 KiB events, 6 partitions) to a no-op endpoint in its own ' +
    `process, concurrency ${CONCURRENCY}, unbatched and with \`batch.maxEvents\` ${MAX_EVENTS} (grouped by ` +
    'tenant, 100 ms wait), alternating (a b, b a, …) after an uncounted drain of each; medians of the runs ' +
    `(\`hookstream bench push --batch --endpoint-delay-ms <ms>\`). Run with the endpoint answering after ` +
    `${DELAYED_MS} ms, as a remote one would, and at loopback where the pusher's CPU is the limit.`,
  async run(ctx) {
    const runs: BatchRun[] = [];
    for (const endpointDelayMs of ctx.scale.batchDelaysMs) {
      ctx.progress(`batch: ${where(endpointDelayMs)}`);
      const result = await benchPush(
        {
          connection: ctx.connection,
          events: ctx.scale.batchEvents,
          concurrency: CONCURRENCY,
          partitions: 6,
          batchRounds: ctx.scale.batchRounds,
          batchEvents: MAX_EVENTS,
          endpointDelayMs,
          // Its pusher/plain-loop figure is the push section's, not this one's: one round is enough.
          rounds: 1,
          warmUp: ctx.scale.warmUpDrains > 0,
        },
        ctx.progress,
      );
      const { batch } = result;
      if (batch === undefined) throw new Error('benchPush ran no batch comparison');
      runs.push({ ...result, batch });
    }
    return runs;
  },
  figures: (runs) =>
    runs.flatMap((r) => [
      {
        id: `batch.${r.endpointDelayMs}ms.rate`,
        label: `pusher, batches of up to ${r.batch.maxEvents}, ${where(r.endpointDelayMs)}`,
        value: r.batch.comparedPerSecond,
        unit: 'events/s',
        baselines: [{ label: 'the same, unbatched (interleaved runs)', value: r.batch.baselinePerSecond }],
      },
      {
        id: `batch.${r.endpointDelayMs}ms.cpu`,
        label: `pusher CPU per delivery, batched, ${where(r.endpointDelayMs)}`,
        value: r.batch.comparedCpuMicros,
        unit: 'µs',
        baselines: [{ label: 'the same, unbatched', value: r.batch.baselineCpuMicros }],
      },
      // Peak heap growth over the drain ÷ requests in flight (the push section's definition).
      ...(r.batch.comparedHeapKiB === null
        ? []
        : [
            {
              id: `batch.${r.endpointDelayMs}ms.memory`,
              label: `pusher heap per request in flight, batched, ${where(r.endpointDelayMs)}`,
              value: r.batch.comparedHeapKiB,
              unit: 'KiB' as const,
              baselines:
                r.batch.baselineHeapKiB === null
                  ? []
                  : [{ label: 'the same, unbatched', value: r.batch.baselineHeapKiB }],
            },
          ]),
    ]),
  targets: (runs) =>
    runs
      .filter((r) => r.endpointDelayMs === DELAYED_MS)
      .map((r) => ({
        target: `batched ≥ ${DELAYED_RATIO}× unbatched behind a ${DELAYED_MS} ms endpoint`,
        measured:
          `${r.batch.ratio.toFixed(2)}× (${r.batch.comparedPerSecond.toLocaleString('en-US')} against ` +
          `${r.batch.baselinePerSecond.toLocaleString('en-US')} events/s, medians of ${r.batch.runs} runs each)`,
        met: r.batch.ratio >= DELAYED_RATIO,
      })),
  chart: (runs) => ({
    throughput: runs.map((r) => ({
      label: `pusher batched (${where(r.endpointDelayMs)})`,
      perSecond: r.batch.comparedPerSecond,
      baseline: { label: 'unbatched', value: r.batch.baselinePerSecond },
    })),
  }),
  details: (runs) =>
    runs
      .map(
        (r) =>
          `${where(r.endpointDelayMs)}, ${r.events.toLocaleString('en-US')} events, every run in order: ` +
          r.batch.all.map((m) => `${m.mode} ${m.perSecond.toLocaleString('en-US')}/s`).join(', '),
      )
      .join('.\n\n'),
});
