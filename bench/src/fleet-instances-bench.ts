import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionSettings } from '@hookstream/contracts';
import { createKafka, type KafkaAdmin } from '@hookstream/kafka';
import { SampleReceiver } from '@hookstream/receiver';
import { ArrivalWatch, waitForArrivals } from './arrival-watch.ts';
import { withBenchTopic } from './bench-topic.ts';
import { localBrokerPid } from './broker-process.ts';
import { connectionEnv } from './child-env.ts';
import { tallyArrivals, type WindowFigures, windowFigures } from './disruption-figures.ts';
import {
  DISRUPTION_LABELS,
  DISRUPTIONS,
  type DisruptionId,
  disrupt,
  expectedMembers,
  type OwnershipStep,
} from './fleet-disruptions.ts';
import { FleetInstances, type FleetShard } from './fleet-instances.ts';
import {
  type BenchSubscriber,
  benchFleetSubscribers,
  deleteSubscribers,
  registerSubscribers,
} from './fleet-subscribers.ts';
import { waitUntilOwned } from './group-owners.ts';
import { KafkaEventSink } from './kafka-event-sink.ts';
import { epochNow } from './open-loop.ts';
import { CpuMeter, residentMemory } from './proc-usage.ts';
import type { RunControl } from './run-control.ts';
import { SteadyLoad } from './steady-load.ts';

export interface InstancesBenchOptions extends RunControl {
  readonly connection: ConnectionSettings;
  readonly hookstreamBin: string;
  /** In all, split evenly over the shards. */
  readonly subscribers: number;
  /** `--match` shards; each has `instancesPerShard` instances running all its subscribers. */
  readonly shards: number;
  readonly instancesPerShard: number;
  /** Subscribers under the steady load, in all, split evenly over the shards. */
  readonly active: number;
  readonly perSubscriberPerSecond: number;
  readonly idleSeconds: number;
  /** The steady load before the first disruption, and after each recovery. */
  readonly settleSeconds: number;
  readonly sessionTimeoutMs: number;
  readonly joinTimeoutSeconds: number;
  readonly disruptions: readonly DisruptionId[];
  /** Each instance in a memory cgroup of this limit (MiB), as a pod; absent: none. */
  readonly podMemoryMiB?: number | undefined;
  /** The instances share destination limits through this Redis, as a deployment of several must. */
  readonly redisUrl?: string | undefined;
}

/** The instances' processes at one moment: the most any of them held, and their loops. */
export interface InstanceFigures {
  readonly live: number;
  readonly rssMaxMiB: number;
  /** VmHWM: the most any live instance held since it started. */
  readonly peakMaxMiB: number;
  /** The largest V8 heap in use among the live instances (null: none answered). */
  readonly heapUsedMaxMiB: number | null;
  /** The worst instance's event-loop delay p99 (and max) since the previous look. */
  readonly loopDelayP99MaxMs: number | null;
  readonly loopDelayMaxMs: number | null;
}

export interface DisruptionResult {
  readonly id: DisruptionId | 'steady';
  readonly steps: readonly OwnershipStep[];
  readonly seconds: number;
  readonly figures: WindowFigures;
  readonly brokerCpuPercent: number | null;
  /** Group joins (JoinGroup + SyncGroup) the instances made, per second of the window. */
  readonly joinsPerSecond: number;
  readonly instances: InstanceFigures;
  /** For a crash: what the killed member can have had taken and not committed (see docs). */
  readonly crashWindowEvents: number | null;
}

export interface InstancesBenchResult {
  readonly prefix: string;
  readonly eventsTopic: string;
  readonly subscribers: number;
  readonly shards: number;
  readonly instancesPerShard: number;
  readonly sessionTimeoutMs: number;
  readonly podMemoryMiB: number | null;
  readonly redis: boolean;
  /** Start of every instance until every group was Stable with all of its shard's instances. */
  readonly joinSeconds: number | null;
  readonly joinedInstances: InstanceFigures;
  readonly idle: {
    readonly seconds: number;
    /** All instances together, % of one core. */
    readonly instancesCpuPercent: number;
    readonly brokerCpuPercent: number | null;
    /** The machine's 1-minute load average at the end of the idle window. */
    readonly loadAverage: number;
    readonly joinsPerSecond: number;
  };
  readonly load: {
    readonly perSecond: number;
    readonly active: number;
    readonly published: number;
    readonly publishErrors: number;
  };
  readonly windows: readonly DisruptionResult[];
  readonly lost: number;
  readonly duplicates: number;
}

const SECRET_ENV = 'HOOKSTREAM_SECRET_BENCH_FLEET';
const STOP_GRACE_MS = 60_000;

/**
 * Several fleet instances, each its own process, over `shards` × `instancesPerShard`: joined,
 * idle, then under a steady load through each disruption of one shard in turn, measured from
 * the receiver (latency, duplicates, losses), the broker (ownership, CPU) and the instances
 * (memory, event loop). Deletes what it created, also when it fails.
 */
export async function runInstancesBench(options: InstancesBenchOptions): Promise<InstancesBenchResult> {
  const prefix = `bench-inst-${randomUUID().slice(0, 8)}`;
  const shards = benchShards(prefix, options);
  const all = shards.flatMap((s) => s.subscribers);
  const names = all.map((s) => s.name);
  const kafka = createKafka({
    ...options.connection.kafka,
    clientId: 'hookstream-bench-instances',
    quiet: true,
  });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = new SampleReceiver({ secret, record: true });
  try {
    const url = `${await receiver.listen(0)}/`;
    return await withBenchTopic(options.connection.kafka, 6, names, async (topic) => {
      const admin = kafka.admin();
      await admin.connect();
      let sink: KafkaEventSink | null = null;
      const instances = new FleetInstances({
        hookstreamBin: options.hookstreamBin,
        prefix,
        topic,
        sessionTimeoutMs: options.sessionTimeoutMs,
        podMemoryMiB: options.podMemoryMiB,
        env: {
          ...process.env,
          ...connectionEnv(options.connection),
          [SECRET_ENV]: secret,
          OTEL_SDK_DISABLED: 'true',
          ...(options.redisUrl === undefined ? {} : { HOOKSTREAM_LIMITER_REDIS: options.redisUrl }),
        },
      });
      try {
        options.progress(`registering ${all.length} subscribers in ${shards.length} shard(s) for ${topic}`);
        await registerSubscribers(kafka, all, { url, doomedUrl: url, secretEnv: SECRET_ENV });
        sink = await KafkaEventSink.open(kafka, options.connection.registry, topic);
        return await measure(options, { prefix, topic, admin, shards, instances, receiver, sink });
      } finally {
        await sink?.close().catch(() => undefined);
        options.progress(`stopping ${instances.live.length} instances (SIGTERM)`);
        await instances.stopAll(STOP_GRACE_MS);
        options.progress('deleting the subscribers, their groups and topics, and the events topic');
        await deleteSubscribers(kafka, names, topic).catch((err: unknown) =>
          options.progress(`cleanup: deleting the registry records: ${String(err)}`),
        );
        await admin.disconnect();
      }
    });
  } finally {
    await receiver.close();
  }
}

/** `shards` shards of `<prefix>-s<k>-NNNN` subscribers, the first `active / shards` of each under load. */
export function benchShards(
  prefix: string,
  o: Pick<InstancesBenchOptions, 'subscribers' | 'shards' | 'active'>,
): FleetShard[] {
  return Array.from({ length: o.shards }, (_, k) => {
    const shardPrefix = `${prefix}-s${k + 1}`;
    const count = Math.floor(o.subscribers / o.shards) + (k < o.subscribers % o.shards ? 1 : 0);
    const active = Math.min(count, Math.floor(o.active / o.shards) + (k < o.active % o.shards ? 1 : 0));
    return {
      index: k + 1,
      match: `${shardPrefix}-*`,
      subscribers: benchFleetSubscribers(shardPrefix, count, active, 0, 'event-type', `k${k + 1}.`),
    };
  });
}

interface Run {
  readonly prefix: string;
  readonly topic: string;
  readonly admin: KafkaAdmin;
  readonly shards: readonly FleetShard[];
  readonly instances: FleetInstances;
  readonly receiver: SampleReceiver;
  readonly sink: KafkaEventSink;
}

async function measure(options: InstancesBenchOptions, run: Run): Promise<InstancesBenchResult> {
  const { progress, signal } = options;
  const { instances, shards, admin } = run;
  const since = performance.now();
  for (const shard of shards)
    for (let i = 0; i < options.instancesPerShard; i++) await instances.start(shard);
  progress(
    `started ${instances.live.length} instances; waiting for every group to be owned by all of its shard's`,
  );
  const expected = new Map(shards.flatMap((s) => [...expectedMembers(instances, s)]));
  const joined = await waitUntilOwned(admin, expected, {
    since,
    timeoutMs: options.joinTimeoutSeconds * 1000,
    failed: () => instances.failed(),
    progress,
    signal,
  });
  progress(
    joined.seconds === null
      ? `${joined.pending} groups not joined; measuring on`
      : `all joined after ${joined.seconds} s`,
  );
  const joinedInstances = await instanceFigures(instances);

  const brokerPid = await localBrokerPid();
  const idle = await measureIdle(options, instances, brokerPid);

  const loaded = shards.flatMap((s) => s.subscribers.filter((x) => x.role === 'active'));
  const perSecond = loaded.length * options.perSubscriberPerSecond;
  const load = new SteadyLoad(run.sink, loaded, perSecond, `steady-${run.prefix}`);
  progress(`steady load: ${perSecond} events/s over ${loaded.length} subscribers`);
  load.start();
  const target = shards[0] as FleetShard;
  const windows: Omit<DisruptionResult, 'figures'>[] = [];
  const bounds: { from: number; to: number; movedBefore: number }[] = [];
  const window = async (id: DisruptionResult['id'], act: () => Promise<OwnershipStep[]>) => {
    await instanceFigures(instances); // resets each instance's loop-delay window
    const broker = brokerPid === null ? null : await CpuMeter.start(brokerPid);
    const joinsBefore = totalJoins(instances);
    const from = epochNow();
    const livePerShard = instances.liveIn(target).length;
    const steps = await act();
    await sleep(options.settleSeconds * 1000, undefined, signal ? { signal } : {});
    const to = epochNow();
    const seconds = (to - from) / 1000;
    windows.push({
      id,
      steps,
      seconds: Math.round(seconds * 10) / 10,
      brokerCpuPercent: broker === null ? null : await broker.percent(),
      joinsPerSecond: Math.round(((totalJoins(instances) - joinsBefore) / seconds) * 10) / 10,
      instances: await instanceFigures(instances),
      crashWindowEvents: null,
    });
    bounds.push({ from, to, movedBefore: livePerShard });
  };
  try {
    await window('steady', async () => []);
    for (const id of options.disruptions) {
      progress(`${id}: ${DISRUPTION_LABELS[id]}, in shard 1`);
      const ctx = {
        admin,
        instances,
        shard: target,
        sessionTimeoutMs: options.sessionTimeoutMs,
        stopGraceMs: STOP_GRACE_MS,
        progress,
        signal,
      };
      await window(id, () => disrupt(id, ctx));
    }
  } finally {
    // Also when a disruption failed: a load left running would keep the process, and the broker, busy.
    await load.stop();
  }
  const published = load.published.length;
  progress(`load stopped after ${published} events; waiting for the last to arrive`);
  const watch = new ArrivalWatch(run.receiver.arrivals);
  await waitForArrivals(() => watch.update(), published, 'steady load', {
    quietMs: 30_000,
    maxMs: 180_000,
    signal,
  });
  const tally = tallyArrivals(run.receiver.arrivals);
  const inTarget = new Set(target.subscribers.map((s) => s.name));
  const results = windows.map((w, i) => {
    const b = bounds[i] as (typeof bounds)[number];
    const figures = windowFigures(
      load.published,
      tally,
      b,
      (p) => inTarget.has(p.subscriber.name),
      shards.length === 1,
    );
    return {
      ...w,
      figures,
      crashWindowEvents: w.id === 'crash' ? crashWindow(load.published, inTarget, b) : null,
    };
  });
  return {
    prefix: run.prefix,
    eventsTopic: run.topic,
    subscribers: shards.reduce((n, s) => n + s.subscribers.length, 0),
    shards: shards.length,
    instancesPerShard: options.instancesPerShard,
    sessionTimeoutMs: options.sessionTimeoutMs,
    podMemoryMiB: options.podMemoryMiB ?? null,
    redis: options.redisUrl !== undefined,
    joinSeconds: joined.seconds,
    joinedInstances,
    idle,
    load: { perSecond, active: loaded.length, published, publishErrors: load.errors },
    windows: results,
    lost: load.published.filter((p) => !tally.first.has(p.id)).length,
    duplicates: tally.repeats.length,
  };
}

/**
 * What a killed instance can have taken and not committed: the disrupted shard's events of the
 * two seconds before the kill (the ledger commits every second, and a delivery takes well under
 * one), over the instances that shared them.
 */
function crashWindow(
  published: readonly { at: number; subscriber: BenchSubscriber }[],
  inTarget: ReadonlySet<string>,
  b: { from: number; movedBefore: number },
): number {
  const before = published.filter(
    (p) => p.at >= b.from - 2000 && p.at < b.from && inTarget.has(p.subscriber.name),
  );
  return Math.ceil(before.length / Math.max(1, b.movedBefore));
}

function totalJoins(instances: FleetInstances): number {
  return instances.all.reduce((n, i) => n + i.child.joins, 0);
}

async function measureIdle(
  options: InstancesBenchOptions,
  instances: FleetInstances,
  brokerPid: number | null,
): Promise<InstancesBenchResult['idle']> {
  options.progress(`idle for ${options.idleSeconds} s: CPU of the instances and the broker`);
  const meters = await Promise.all(instances.live.map((i) => CpuMeter.start(i.child.pid)));
  const broker = brokerPid === null ? null : await CpuMeter.start(brokerPid);
  const joinsBefore = totalJoins(instances);
  await sleep(options.idleSeconds * 1000, undefined, options.signal ? { signal: options.signal } : {});
  const shares = await Promise.all(meters.map((m) => m.percent()));
  const loadavg = Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]);
  return {
    seconds: options.idleSeconds,
    instancesCpuPercent: Math.round(shares.reduce((a, b) => a + b, 0) * 10) / 10,
    brokerCpuPercent: broker === null ? null : await broker.percent(),
    loadAverage: loadavg,
    joinsPerSecond: Math.round(((totalJoins(instances) - joinsBefore) / options.idleSeconds) * 100) / 100,
  };
}

async function instanceFigures(instances: FleetInstances): Promise<InstanceFigures> {
  const live = instances.live;
  const memory = await Promise.all(
    live.map((i) => residentMemory(i.child.pid).catch(() => ({ rssMiB: 0, peakMiB: 0 }))),
  );
  const heaps = await Promise.all(live.map((i) => i.child.heap()));
  const loops = heaps.filter((h) => h !== null);
  return {
    live: live.length,
    rssMaxMiB: Math.max(0, ...memory.map((m) => m.rssMiB)),
    peakMaxMiB: Math.max(0, ...memory.map((m) => m.peakMiB)),
    heapUsedMaxMiB: loops.length === 0 ? null : Math.max(...loops.map((h) => h.usedMiB)),
    loopDelayP99MaxMs: loops.length === 0 ? null : Math.max(...loops.map((h) => h.loopDelayP99Ms)),
    loopDelayMaxMs: loops.length === 0 ? null : Math.max(...loops.map((h) => h.loopDelayMaxMs)),
  };
}

export { DISRUPTIONS };
