import { parseBenchFleetArgs } from './cli/bench-fleet.ts';
import { type FleetBenchResult, runFleetBench } from './fleet-bench.ts';
import { hookstreamBin } from './hookstream-bin.ts';
import { type KafkaFloorResult, runKafkaFloor } from './kafka-floor.ts';
import { defineSection, type Figure, type RunnableSection, ratio } from './report-section.ts';

/**
 * The fleet and its floor run in a memory cgroup of the chart's pusher pod limit where the machine
 * allows: Node sizes its heap from it, so the figures are the pod's, not a 24 GiB machine's.
 */
const POD_MEMORY_MIB = 768;

/** Issue 30's targets for one fleet process of 1,000 subscribers. */
const TARGETS = {
  rssMiB: 400,
  /** RSS once joined over the floor's: what hookstream adds to kafkajs's own group members. */
  overFloor: 1.3,
  peakMiB: 512,
  idleCpuPercent: 10,
  p99Ms: 100,
} as const;

export interface FleetSectionResult {
  readonly floor: KafkaFloorResult;
  readonly fleet: FleetBenchResult;
}

/**
 * The fleet (`hookstream bench fleet`) and its memory floor, measured in the same run: not in the
 * default list (minutes at 1,000 subscribers); `hookstream bench --fleet` adds it.
 */
export function fleetSection(subscribers: number, signal?: AbortSignal): RunnableSection {
  return defineSection<FleetSectionResult>({
    id: 'fleet',
    title: `Fleet: ${subscribers.toLocaleString('en-US')} subscribers in one process`,
    method:
      `One pusher fleet process (\`hookstream push --all\`) hosting ${subscribers.toLocaleString('en-US')} ` +
      'subscribers of the catalog, each its own group on an events topic of the run (6 partitions), all ' +
      'delivering to a local receiver (`hookstream bench fleet`): RSS once every group joined (Stable with ' +
      'its member), idle CPU, then 10 events/s to each of up to 100 of them (scheduled publish → arrival), ' +
      'and the same once 10 of those point at an endpoint that died (connection refused). The floor, ' +
      'measured first in the same run: as many plain kafkajs consumers in one process with one client, ' +
      'each in a group of its own subscribed to an empty topic of 6 partitions, doing nothing, RSS once ' +
      `all joined. Both run in a memory cgroup of ${POD_MEMORY_MIB} MiB, the chart's pusher pod limit, where the ` +
      'machine allows one (Node then sizes its heap as in that pod; the details say whether it did). Both ' +
      'delete their groups and topics afterwards.',
    async run(ctx) {
      const parsed = parseBenchFleetArgs([
        '--subscribers',
        String(subscribers),
        '--idle-seconds',
        String(ctx.scale.fleetIdleSeconds),
        '--load-seconds',
        String(ctx.scale.fleetLoadSeconds),
        '--pod-memory',
        String(POD_MEMORY_MIB),
      ]);
      if (parsed.kind !== 'run') throw new Error(parsed.kind === 'bad' ? parsed.error : 'no fleet settings');
      const { settings } = parsed;
      const control = { progress: ctx.progress, signal };
      const floor = await runKafkaFloor({
        ...control,
        connection: ctx.connection,
        consumers: settings.subscribers,
        joinTimeoutSeconds: settings.joinTimeoutSeconds,
        podMemoryMiB: settings.podMemoryMiB,
      });
      const fleet = await runFleetBench({
        ...control,
        ...settings,
        connection: ctx.connection,
        hookstreamBin: hookstreamBin(),
      });
      return { floor, fleet };
    },
    figures: ({ floor, fleet }): Figure[] => {
      const n = fleet.subscribers.toLocaleString('en-US');
      const floorLabel = `floor: ${floor.consumers.toLocaleString('en-US')} plain kafkajs consumers`;
      return [
        {
          id: 'fleet.rss.joined',
          label: `fleet RSS once all ${n} groups joined`,
          value: fleet.memory.rssMiB,
          unit: 'MiB',
          baselines: [{ label: floorLabel, value: floor.rssMiB }],
        },
        {
          // Once joined can fall just after a collection; this is the same process a minute on.
          id: 'fleet.rss.idle',
          label: `fleet RSS after the idle window (${fleet.idle.seconds} s)`,
          value: fleet.memory.rssAfterIdleMiB,
          unit: 'MiB',
          baselines: [{ label: floorLabel, value: floor.rssMiB }],
        },
        {
          id: 'fleet.rss.peak',
          label: 'fleet peak RSS (VmHWM) under load',
          value: fleet.memory.peakMiB,
          unit: 'MiB',
          baselines: [],
        },
        {
          id: 'fleet.join.seconds',
          label: `fleet: all ${n} groups joined after`,
          value: fleet.join.seconds ?? 0,
          unit: 's',
          baselines: floor.joinSeconds === null ? [] : [{ label: floorLabel, value: floor.joinSeconds }],
        },
        {
          id: 'fleet.idle.cpu',
          label: `fleet CPU, idle for ${fleet.idle.seconds} s`,
          value: fleet.idle.fleetCpuPercent,
          unit: '% of a core',
          baselines: [],
        },
        {
          id: 'fleet.load.p99',
          label: `fleet e2e p99 at ${fleet.load.targetPerSecond} deliveries/s`,
          value: fleet.load.all.latency.p99Ms,
          unit: 'ms',
          baselines: [],
        },
        ...(fleet.dead === null
          ? []
          : ([
              {
                id: 'fleet.dead.p99',
                label: `fleet e2e p99 of the healthy, ${fleet.deadEndpoints} endpoints dead`,
                value: fleet.dead.healthy.latency.p99Ms,
                unit: 'ms',
                baselines: [
                  { label: 'the same, every endpoint up', value: fleet.load.healthy.latency.p99Ms },
                ],
              },
              {
                id: 'fleet.dead.rate',
                label: `fleet: healthy subscribers' deliveries, ${fleet.deadEndpoints} endpoints dead`,
                value: fleet.dead.healthy.perSecond,
                unit: 'deliveries/s',
                baselines: [{ label: 'the same, every endpoint up', value: fleet.load.healthy.perSecond }],
              },
            ] satisfies Figure[])),
      ];
    },
    targets: ({ floor, fleet }) => {
      const t = TARGETS;
      const overFloor = ratio(fleet.memory.rssMiB, floor.rssMiB);
      const p99 = (latency: { count: number; p99Ms: number }, delivered: boolean) =>
        latency.count > 0 && delivered && latency.p99Ms <= t.p99Ms;
      const { load, dead } = fleet;
      return [
        {
          target: `fleet RSS once joined ≤ ${t.rssMiB} MiB`,
          measured: `${fleet.memory.rssMiB} MiB (${fleet.subscribers} subscribers)`,
          met: fleet.join.seconds !== null && fleet.memory.rssMiB <= t.rssMiB,
        },
        {
          target: `fleet RSS once joined ≤ ${t.overFloor}× the floor (as many plain kafkajs consumers)`,
          measured: `${overFloor.toFixed(2)}× (${fleet.memory.rssMiB} against ${floor.rssMiB} MiB)`,
          met: floor.joinSeconds !== null && overFloor > 0 && overFloor <= t.overFloor,
        },
        {
          target: `fleet RSS after the idle window ≤ ${t.rssMiB} MiB (not a target of the issue: the steady figure beside the one above)`,
          measured: `${fleet.memory.rssAfterIdleMiB} MiB after ${fleet.idle.seconds} s idle`,
          met: fleet.memory.rssAfterIdleMiB <= t.rssMiB,
        },
        {
          target: `fleet peak RSS ≤ ${t.peakMiB} MiB under load`,
          measured: `${fleet.memory.peakMiB} MiB`,
          met: fleet.memory.peakMiB <= t.peakMiB,
        },
        {
          target: `fleet idle ≤ ${t.idleCpuPercent} % of a core`,
          measured: `${fleet.idle.fleetCpuPercent} %`,
          met: fleet.idle.fleetCpuPercent <= t.idleCpuPercent,
        },
        {
          target: `fleet p99 ≤ ${t.p99Ms} ms at ${load.targetPerSecond.toLocaleString('en-US')} deliveries/s`,
          measured: `${load.all.latency.p99Ms} ms (${load.all.delivered}/${load.published} delivered)`,
          met: p99(load.all.latency, load.all.delivered === load.published),
        },
        ...(dead === null
          ? []
          : [
              {
                target: `fleet p99 ≤ ${t.p99Ms} ms at ${dead.targetPerSecond.toLocaleString('en-US')} deliveries/s with ${fleet.deadEndpoints} dead endpoints`,
                measured: `${dead.healthy.latency.p99Ms} ms for the healthy (${dead.healthy.delivered} delivered)`,
                met: p99(dead.healthy.latency, dead.healthy.delivered > 0),
              },
            ]),
      ];
    },
    chart: ({ fleet }) => ({
      latency: [
        {
          label: `fleet at ${fleet.load.targetPerSecond}/s`,
          p50Ms: fleet.load.all.latency.p50Ms,
          p99Ms: fleet.load.all.latency.p99Ms,
        },
        ...(fleet.dead === null
          ? []
          : [
              {
                label: `fleet, ${fleet.deadEndpoints} endpoints dead`,
                p50Ms: fleet.dead.healthy.latency.p50Ms,
                p99Ms: fleet.dead.healthy.latency.p99Ms,
              },
            ]),
      ],
    }),
    details: ({ fleet, floor }) =>
      `Memory limit: the fleet ran ${limitOf(fleet.podMemoryMiB)}, the floor ${limitOf(floor.podMemoryMiB)}.\n\n` +
      `Issue 11's targets, as \`hookstream bench fleet\` checks them:\n\n| target | measured | result |\n| --- | --- | --- |\n` +
      fleet.targets
        .map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'met' : '**missed**'} |`)
        .join('\n') +
      `\n\nLeft behind: ${fleet.cleanup.recordsLeft} records, ${fleet.cleanup.topicsLeft} topics, ${fleet.cleanup.groupsLeft} groups` +
      (fleet.cleanup.errors.length > 0 ? `; cleanup errors: ${fleet.cleanup.errors.join('; ')}` : '') +
      '.',
  });
}

function limitOf(mib: number | null): string {
  return mib === null
    ? 'without a memory limit (no cgroup could be made here)'
    : `in a memory cgroup of ${mib} MiB`;
}
