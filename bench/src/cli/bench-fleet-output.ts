import { formatTable } from '@hookstream/terminal';
import type { FleetBenchResult } from '../fleet-bench.ts';

type Load = FleetBenchResult['load'];
type Latency = Load['all']['latency'];

const ms = (l: Latency) => `p50 ${l.p50Ms} ms, p90 ${l.p90Ms} ms, p99 ${l.p99Ms} ms, max ${l.maxMs} ms`;
const topics = (t: { topics: number; partitions: number }) =>
  `${t.topics} topics, ${t.partitions} partitions`;

function loadRows(name: string, load: Load): string[][] {
  return [
    [
      `${name}: published`,
      `${load.published} events at ${load.targetPerSecond}/s for ${load.seconds} s (${load.publishErrors} failed)`,
    ],
    [`${name}: delivered`, `${load.all.delivered}, e2e ${ms(load.all.latency)}`],
    [
      `${name}: healthy subscribers`,
      `${load.healthy.perSecond}/s delivered, e2e ${ms(load.healthy.latency)}`,
    ],
    [`${name}: fleet CPU`, `${load.fleetCpuPercent} % of one core`],
  ];
}

/** The result for people: the figures, then each target beside what was measured. */
export function formatFleetBench(r: FleetBenchResult): string {
  const { memory, idle, join } = r;
  const heap = memory.heap
    ? `${memory.heap.usedMiB} MiB used of ${memory.heap.totalMiB} MiB (external ${memory.heap.externalMiB} MiB)`
    : 'not read';
  const rows: string[][] = [
    [
      'routing',
      r.routing === 'tenant'
        ? 'a tenant each (ce_tenant), one shared event type'
        : 'an event type each (ce_type)',
    ],
    ['memory limit', r.podMemoryMiB === null ? 'none' : `a memory cgroup of ${r.podMemoryMiB} MiB`],
    [
      'groups joined',
      `${join.joined}/${join.groups}${join.seconds === null ? '' : ` after ${join.seconds} s`}` +
        (join.shared > 0 ? ` (${join.shared} also joined by another process)` : ''),
    ],
    ['RSS once all joined', `${memory.rssMiB} MiB`],
    ['V8 heap once all joined', heap],
    ['RSS after idle / peak', `${memory.rssAfterIdleMiB} MiB / ${memory.peakMiB} MiB`],
    [`idle CPU over ${idle.seconds} s: fleet`, `${idle.fleetCpuPercent} % of one core`],
    [
      `idle CPU over ${idle.seconds} s: broker`,
      idle.broker
        ? `${idle.broker.cpuPercent} % of one core (pid ${idle.broker.pid})`
        : 'unknown (not this stack)',
    ],
    ['subscriber topics when idle', topics(r.ownTopics.idle)],
    ...loadRows(`load (${r.load.subscribers} subscribers)`, r.load),
    ...(r.dead
      ? [
          ...loadRows(`${r.deadEndpoints} dead`, r.dead),
          [`${r.deadEndpoints} dead: their deliveries`, String(r.dead.doomedDelivered)],
          ['healthy rate, dead / all up', `×${r.healthyRateRatio}`],
        ]
      : []),
    ['subscriber topics at the end', topics(r.ownTopics.end)],
    [
      'cleanup',
      `fleet ${r.cleanup.fleet}; left: ${r.cleanup.recordsLeft} records, ${r.cleanup.topicsLeft} topics, ${r.cleanup.groupsLeft} groups`,
    ],
  ];
  const targets = r.targets.map((t) => [t.target, t.measured, t.met ? 'met' : 'MISSED']);
  return [
    `hookstream bench fleet: ${r.subscribers} subscribers (${r.prefix}-*) in one fleet process, events topic ${r.eventsTopic}`,
    '',
    formatTable(['figure', 'value'], rows),
    '',
    formatTable(['target', 'measured', ''], targets),
    '',
    'e2e = first accepted arrival at the endpoint − scheduled publish (open loop); healthy = subscribers whose endpoint stayed up',
    ...r.cleanup.errors.map((e) => `cleanup: ${e}`),
  ].join('\n');
}
