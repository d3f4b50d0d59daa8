import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ConnectionSettings, subscriberGroupId } from '@hookstream/contracts';
import { createKafka, type KafkaAdmin } from '@hookstream/kafka';
import { SampleReceiver } from '@hookstream/receiver';
import { ArrivalWatch } from './arrival-watch.ts';
import { withBenchTopic } from './bench-topic.ts';
import { localBrokerPid } from './broker-process.ts';
import { connectionEnv } from './child-env.ts';
import { FleetChild, type HeapFigures } from './fleet-child.ts';
import { type CleanupReport, stopFleet, whatIsLeft } from './fleet-cleanup.ts';
import { type LoadFigures, runLoadPhase } from './fleet-load.ts';
import { type OwnTopics, ownTopics } from './fleet-partitions.ts';
import {
  type BenchRouting,
  type BenchSubscriber,
  benchFleetSubscribers,
  deleteSubscribers,
  registerSubscribers,
} from './fleet-subscribers.ts';
import { fleetTargets } from './fleet-targets.ts';
import { type JoinWait, waitUntilJoined } from './group-joins.ts';
import { KafkaEventSink } from './kafka-event-sink.ts';
import { type PodCgroup, podCgroup } from './pod-cgroup.ts';
import { CpuMeter, residentMemory } from './proc-usage.ts';
import type { TargetCheck } from './report-section.ts';
import type { RunControl } from './run-control.ts';

export interface FleetBenchOptions extends RunControl {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  /** The hookstream command's script: the fleet runs as `<node> <bin> push --all …`. */
  readonly hookstreamBin: string;
  readonly subscribers: number;
  /** Each subscriber's own event type routes its events, or its own tenant on one shared type. */
  readonly routing: BenchRouting;
  /** Subscribers under load, the first of them; at most `subscribers`. */
  readonly active: number;
  /** Of the active ones, how many have their endpoint die before the second load (0: no such load). */
  readonly dead: number;
  readonly perSubscriberPerSecond: number;
  readonly idleSeconds: number;
  /** Length of each load. */
  readonly loadSeconds: number;
  /** How long to wait for every group to join before measuring on regardless. */
  readonly joinTimeoutSeconds: number;
  /**
   * Run the fleet in a memory cgroup of this limit (MiB), as a pod's limit does (Node sizes its
   * heap from it), where the machine allows one; absent: no limit.
   */
  readonly podMemoryMiB?: number | undefined;
}

export interface FleetBenchResult {
  readonly prefix: string;
  readonly eventsTopic: string;
  readonly subscribers: number;
  /** What told the subscribers' events apart: a type each, or a tenant each on one type. */
  readonly routing: BenchRouting;
  /** The memory limit the fleet ran under (a cgroup); null: none (not asked, or not possible here). */
  readonly podMemoryMiB: number | null;
  /** From the fleet process's spawn until every group was Stable with a member. */
  readonly join: JoinWait;
  readonly memory: {
    /** VmRSS once all joined. */
    readonly rssMiB: number;
    readonly heap: HeapFigures | null;
    readonly rssAfterIdleMiB: number;
    /** VmHWM at the end: the most the fleet held at any time of the run. */
    readonly peakMiB: number;
  };
  readonly idle: {
    readonly seconds: number;
    readonly fleetCpuPercent: number;
    /** Null when the broker is not the local stack's (its pid unknown). */
    readonly broker: { readonly pid: number; readonly cpuPercent: number } | null;
  };
  /** The subscribers' own topics: once all joined and idle, and at the end (the dead ones' tiers). */
  readonly ownTopics: { readonly idle: OwnTopics; readonly end: OwnTopics };
  readonly load: LoadFigures;
  readonly dead: LoadFigures | null;
  readonly deadEndpoints: number;
  /** Healthy delivered rate with the dead endpoints / without; null without a dead phase. */
  readonly healthyRateRatio: number | null;
  readonly targets: readonly TargetCheck[];
  readonly cleanup: CleanupReport;
}

/** The variable the fleet reads the subscribers' signing secret from (`"secret": {"env": …}`). */
const SECRET_ENV = 'HOOKSTREAM_SECRET_BENCH_FLEET';
type Measured = Omit<FleetBenchResult, 'cleanup' | 'targets'>;
type MeasuredInProcess = Omit<Measured, 'podMemoryMiB'>;

/**
 * One pusher fleet process (`hookstream push --all`) hosting `subscribers` subscribers of the
 * catalog topic, each its own group on an events topic of the run's own, told apart by an event
 * type each or by a tenant each (`routing`): how long until all joined, its memory and idle CPU
 * (and the broker's), then latency under load and how healthy subscribers fare once some
 * endpoints die. Deletes what it created, also when it fails.
 */
export async function runFleetBench(options: FleetBenchOptions): Promise<FleetBenchResult> {
  const prefix = `bench-fleet-${randomUUID().slice(0, 8)}`;
  const subscribers = benchFleetSubscribers(
    prefix,
    options.subscribers,
    options.active,
    options.dead,
    options.routing,
  );
  const names = subscribers.map((s) => s.name);
  const kafka = createKafka({ ...options.connection.kafka, clientId: 'hookstream-bench-fleet', quiet: true });
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const receiver = new SampleReceiver({ secret, record: true });
  const doomed = new SampleReceiver({ secret, record: true });
  const cleanup = { fleet: 'not started' as CleanupReport['fleet'], errors: [] as string[] };
  // Said at once too: a run that fails or is interrupted returns no report to carry them.
  const cleanupFailed = (text: string) => {
    cleanup.errors.push(text);
    options.progress(`cleanup: ${text}`);
  };
  let measured: Measured;
  try {
    const urls = { url: `${await receiver.listen(0)}/`, doomedUrl: `${await doomed.listen(0)}/` };
    measured = await withBenchTopic(options.connection.kafka, 6, names, async (topic) => {
      const admin = kafka.admin();
      await admin.connect();
      let sink: KafkaEventSink | null = null;
      let fleet: FleetChild | null = null;
      let cgroup: PodCgroup | null = null;
      try {
        const each = options.routing === 'tenant' ? 'a tenant each, one event type' : 'an event type each';
        options.progress(
          `registering ${names.length} subscribers ${prefix}-* (${each}) for events topic ${topic}`,
        );
        await registerSubscribers(kafka, subscribers, { ...urls, secretEnv: SECRET_ENV });
        sink = await KafkaEventSink.open(kafka, options.connection.registry, topic);
        const run = { prefix, topic, admin, subscribers, receiver, doomed };
        if (options.podMemoryMiB !== undefined) {
          cgroup = await podCgroup(`hookstream-${prefix}`, options.podMemoryMiB);
          options.progress(
            cgroup
              ? `the fleet runs in a memory cgroup of ${options.podMemoryMiB} MiB, as in a pod of that limit`
              : `no memory cgroup can be made here (needs root and a cgroup file system): the fleet runs without a limit`,
          );
        }
        const started = startFleet(options, run.prefix, topic, secret, cgroup);
        fleet = started.fleet;
        return {
          ...(await measure(options, run, fleet, started.since, sink)),
          podMemoryMiB: cgroup?.limitMiB ?? null,
        };
      } finally {
        await sink?.close().catch(() => undefined);
        if (fleet) cleanup.fleet = await stopFleet(fleet, admin, names, options, cleanupFailed);
        await cgroup?.remove();
        options.progress('deleting the subscribers, their groups and topics, and the events topic');
        await deleteSubscribers(kafka, names, topic).catch((err: unknown) =>
          cleanupFailed(`deleting the registry records: ${message(err)}`),
        );
        await admin.disconnect();
      }
    });
  } finally {
    await Promise.all([receiver.close(), doomed.close()]);
  }
  const left = await whatIsLeft(kafka, prefix, measured.eventsTopic);
  return { ...measured, targets: fleetTargets(measured), cleanup: { ...cleanup, ...left } };
}

interface Run {
  readonly prefix: string;
  readonly topic: string;
  readonly admin: KafkaAdmin;
  readonly subscribers: readonly BenchSubscriber[];
  readonly receiver: SampleReceiver;
  readonly doomed: SampleReceiver;
}

function startFleet(
  options: FleetBenchOptions,
  prefix: string,
  topic: string,
  secret: string,
  cgroup: PodCgroup | null,
): { fleet: FleetChild; since: number } {
  const args = ['push', '--all', '--match', `${prefix}-*`, '--topic', topic];
  options.progress(`starting one fleet process: hookstream ${args.join(' ')}`);
  const since = performance.now();
  const fleet = FleetChild.spawn(
    options.hookstreamBin,
    args,
    {
      ...process.env,
      ...connectionEnv(options.connection),
      [SECRET_ENV]: secret,
      // Tracing is measured by `bench push --tracing`; here it would only add an exporter's noise.
      OTEL_SDK_DISABLED: 'true',
    },
    cgroup,
  );
  return { fleet, since };
}

async function measure(
  options: FleetBenchOptions,
  run: Run,
  fleet: FleetChild,
  since: number,
  sink: KafkaEventSink,
): Promise<MeasuredInProcess> {
  const { progress, signal } = options;
  const join = await waitUntilJoined(
    run.admin,
    run.subscribers.map((s) => subscriberGroupId(s.name)),
    { since, timeoutMs: options.joinTimeoutSeconds * 1000, progress, failed: () => fleet.ended, signal },
  );
  progress(
    join.seconds === null
      ? `only ${join.joined}/${join.groups} groups joined within ${options.joinTimeoutSeconds} s; measuring on`
      : `all ${join.groups} groups joined after ${join.seconds} s`,
  );
  if (join.shared > 0)
    progress(`${join.shared} groups have members of another process too (a push --all without --match?)`);
  const { rssMiB } = await residentMemory(fleet.pid);
  const heap = await fleet.heap();
  const idleTopics = await ownTopics(run.admin, run.prefix);

  const { idle, rssAfterIdleMiB } = await measureIdle(options, fleet);
  const { load, dead } = await measureLoads(options, run, fleet, sink);
  const { peakMiB } = await residentMemory(fleet.pid);
  return {
    prefix: run.prefix,
    eventsTopic: run.topic,
    subscribers: run.subscribers.length,
    routing: options.routing,
    join,
    memory: { rssMiB, heap, rssAfterIdleMiB, peakMiB },
    idle,
    ownTopics: { idle: idleTopics, end: await ownTopics(run.admin, run.prefix) },
    load,
    dead,
    deadEndpoints: options.dead,
    healthyRateRatio:
      dead === null || load.healthy.perSecond === 0
        ? null
        : Math.round((dead.healthy.perSecond / load.healthy.perSecond) * 1000) / 1000,
  };
}

/** The fleet's and the broker's CPU over the idle window, and the fleet's RSS after it. */
async function measureIdle(
  options: FleetBenchOptions,
  fleet: FleetChild,
): Promise<Pick<Measured, 'idle'> & { rssAfterIdleMiB: number }> {
  const { progress } = options;
  const brokerPid = await localBrokerPid();
  if (brokerPid === null)
    progress('the broker is not one the local stack in HOOKSTREAM_STATE_DIR started: no broker CPU');
  progress(
    `idle for ${options.idleSeconds} s: CPU of the fleet${brokerPid === null ? '' : ' and the broker'}`,
  );
  const fleetCpu = await CpuMeter.start(fleet.pid);
  const brokerCpu = brokerPid === null ? null : await CpuMeter.start(brokerPid);
  await idleFor(options.idleSeconds, options);
  return {
    idle: {
      seconds: options.idleSeconds,
      fleetCpuPercent: await fleetCpu.percent(),
      broker:
        brokerPid === null || brokerCpu === null
          ? null
          : { pid: brokerPid, cpuPercent: await brokerCpu.percent() },
    },
    rssAfterIdleMiB: (await residentMemory(fleet.pid)).rssMiB,
  };
}

/** A warm-up, the load with every endpoint up, then (with --dead) the same once some died. */
async function measureLoads(
  options: FleetBenchOptions,
  run: Run,
  fleet: FleetChild,
  sink: KafkaEventSink,
): Promise<Pick<Measured, 'load' | 'dead'>> {
  const { progress, signal } = options;
  const loaded = run.subscribers.filter((s) => s.role !== 'idle');
  const watches = [new ArrivalWatch(run.receiver.arrivals), new ArrivalWatch(run.doomed.arrivals)];
  const phase = { subscribers: loaded, watches, sink, fleetPid: fleet.pid, progress, signal };
  const rate = options.perSubscriberPerSecond;
  const length = { perSubscriberPerSecond: rate, seconds: options.loadSeconds };
  // As the e2e bench does: each subscriber's first delivery (its connection, the schema lookup)
  // is not what a second of steady load costs.
  progress(`warm-up: one event for each of the ${loaded.length} subscribers under load`);
  const warmUp = { perSubscriberPerSecond: 1, seconds: 1, label: 'warm-up', doomedDead: false };
  await runLoadPhase({ ...phase, ...warmUp });
  progress(`load: ${loaded.length} subscribers × ${rate} events/s for ${options.loadSeconds} s`);
  const load = await runLoadPhase({ ...phase, ...length, label: 'load', doomedDead: false });
  if (options.dead === 0) return { load, dead: null };
  await run.doomed.close();
  progress(`the same load with ${options.dead} of the ${loaded.length} endpoints dead (connection refused)`);
  const dead = await runLoadPhase({ ...phase, ...length, label: 'dead', doomedDead: true });
  return { load, dead };
}

/** Waits out the idle window, with a progress line every 10 s; the benchmark itself stays quiet. */
async function idleFor(seconds: number, { progress, signal }: RunControl): Promise<void> {
  for (let done = 0; done < seconds; ) {
    const step = Math.min(10, seconds - done);
    await sleep(step * 1000, undefined, signal ? { signal } : {});
    done += step;
    if (done < seconds) progress(`idle: ${done}/${seconds} s`);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
