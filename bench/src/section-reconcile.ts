import { hookstreamBin } from './hookstream-bin.ts';
import { type ReconcileBenchResult, runReconcileBench } from './reconcile-bench.ts';
import { defineSection } from './report-section.ts';

/** Issue 30's targets for `hookstream reconcile` over a window of 1,000,000 events. */
const WALL_SECONDS = 60;
const PEAK_RSS_MB = 300;
const MIB_PER_MB = 1e6 / 2 ** 20;

export const reconcileSection = defineSection<ReconcileBenchResult>({
  id: 'reconcile',
  title: 'Reconcile: a window of events against every required subscriber',
  method:
    "A window of 1 KiB events with the ingress's CloudEvents headers on a topic of its own (6 partitions), " +
    'three required subscribers in the catalog whose ledgers and failure topics are set directly, as a ' +
    'pusher would have left them (one at the end, one at the end with 10,000 records waiting in a retry ' +
    'tier, one 1 % behind with 1,000 dead letters), then `hookstream reconcile` over the window as a child ' +
    'process: its wall time and peak RSS (`hookstream bench reconcile`). Baseline: the time it took to ' +
    'produce the window with raw kafkajs (4 batches of 2,000 in flight).',
  run: (ctx) =>
    runReconcileBench({
      connection: ctx.connection,
      events: ctx.scale.reconcileEvents,
      partitions: 6,
      hookstreamBin: hookstreamBin(),
      report: ctx.progress,
    }),
  figures: (r) => [
    {
      id: 'reconcile.seconds',
      label: `hookstream reconcile over ${r.events.toLocaleString('en-US')} events, wall time`,
      value: r.reconcileSeconds,
      unit: 's',
      baselines: [{ label: 'producing the window (raw kafkajs)', value: r.produceSeconds }],
    },
    {
      id: 'reconcile.rss',
      label: 'hookstream reconcile, peak RSS',
      value: r.peakRssMiB,
      unit: 'MiB',
      baselines: [],
    },
  ],
  targets: (r) => {
    const of = `over ${r.events.toLocaleString('en-US')} events`;
    return [
      {
        target: `reconcile ≤ ${WALL_SECONDS} s wall ${of}`,
        measured: `${r.reconcileSeconds} s (exit code ${r.exitCode})`,
        met: r.reconcileSeconds <= WALL_SECONDS,
      },
      {
        target: `reconcile peak RSS ≤ ${PEAK_RSS_MB} MB (${Math.floor(PEAK_RSS_MB * MIB_PER_MB)} MiB) ${of}`,
        measured: `${r.peakRssMiB} MiB`,
        met: r.peakRssMiB <= PEAK_RSS_MB * MIB_PER_MB,
      },
    ];
  },
  details: (r) =>
    `Exit code ${r.exitCode}. What it found: ` +
    Object.entries(r.counts)
      .map(
        ([name, c]) =>
          `${name}: ${Object.entries(c)
            .filter(([, n]) => n > 0)
            .map(([state, n]) => `${state} ${n.toLocaleString('en-US')}`)
            .join(', ')} (indexed ${r.indexed[name] ?? 0} failure copies)`,
      )
      .join('; ') +
    '.',
});
