import { formatTable } from '@hookstream/terminal';
import type { WindowDeliveries } from '../disruption-figures.ts';
import { DISRUPTION_LABELS } from '../fleet-disruptions.ts';
import type { InstancesBenchResult } from '../fleet-instances-bench.ts';
import type { TargetCheck } from '../report-section.ts';

const deliveries = (d: WindowDeliveries | null) =>
  d === null
    ? '–'
    : `${d.perSecond}/s, p99 ${d.latency.p99Ms} ms, max ${d.latency.maxMs} ms${d.lost > 0 ? `, ${d.lost} lost` : ''}`;

/** The result for people: the run, one row per disruption, then each target. */
export function formatInstancesBench(r: InstancesBenchResult, targets: readonly TargetCheck[]): string {
  const j = r.joinedInstances;
  const figures = [
    ['shape', `${r.shards} shard(s) × ${r.instancesPerShard} instances, ${r.subscribers} subscribers`],
    ['session timeout', `${r.sessionTimeoutMs} ms`],
    ['shared limits', r.redis ? 'Redis' : 'none (each instance alone)'],
    ['memory limit', r.podMemoryMiB === null ? 'none' : `${r.podMemoryMiB} MiB per instance`],
    ['all joined', r.joinSeconds === null ? 'not within the timeout' : `${r.joinSeconds} s`],
    [
      'RSS per instance once joined',
      `at most ${j.rssMaxMiB} MiB (heap in use at most ${j.heapUsedMaxMiB ?? '–'} MiB)`,
    ],
    [
      `idle ${r.idle.seconds} s`,
      `instances ${r.idle.instancesCpuPercent} %, broker ${r.idle.brokerCpuPercent ?? '–'} % of one core, load average ${r.idle.loadAverage}, ${r.idle.joinsPerSecond} joins/s`,
    ],
    [
      'steady load',
      `${r.load.perSecond} events/s over ${r.load.active} subscribers (${r.load.published} published)`,
    ],
    ['lost / duplicates in all', `${r.lost} / ${r.duplicates}`],
  ];
  const rows = r.windows.map((w) => [
    w.id === 'steady' ? 'steady (no change)' : DISRUPTION_LABELS[w.id],
    w.steps.map((s) => (s.seconds === null ? 'not owned' : `${s.seconds}`)).join(' + ') || '–',
    deliveries(w.figures.moved),
    deliveries(w.figures.unmoved),
    String(w.figures.duplicates),
    `${w.brokerCpuPercent ?? '–'} %`,
    String(w.joinsPerSecond),
    `${w.instances.rssMaxMiB} / ${w.instances.peakMaxMiB} / ${w.instances.heapUsedMaxMiB ?? '–'}`,
    w.instances.loopDelayP99MaxMs === null
      ? '–'
      : `${w.instances.loopDelayP99MaxMs} / ${w.instances.loopDelayMaxMs}`,
  ]);
  return [
    `hookstream bench fleet --instances: events topic ${r.eventsTopic}, subscribers ${r.prefix}-*`,
    '',
    formatTable(['figure', 'value'], figures),
    '',
    formatTable(
      [
        'disruption (shard 1)',
        'owned again after (s)',
        'moved: delivered, latency',
        'unmoved',
        'dupl.',
        'broker CPU',
        'joins/s',
        'RSS / peak / heap MiB',
        'loop delay p99 / max ms',
      ],
      rows,
    ),
    '',
    formatTable(
      ['target', 'measured', ''],
      targets.map((t) => [t.target, t.measured, t.met ? 'met' : 'MISSED']),
    ),
    '',
    'moved = subscribers of the disrupted shard (their groups rebalanced); latency = first accepted arrival − scheduled publish',
  ].join('\n');
}
