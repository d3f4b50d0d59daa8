import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionSettings } from '@hookstream/contracts';
import { createKafka, type KafkaAdmin } from '@hookstream/kafka';
import { connectionEnv } from './child-env.ts';
import { FleetChild } from './fleet-child.ts';
import { waitUntilJoined } from './group-joins.ts';
import { type PodCgroup, podCgroup } from './pod-cgroup.ts';
import { residentMemory } from './proc-usage.ts';
import type { RunControl } from './run-control.ts';

export interface KafkaFloorOptions extends RunControl {
  readonly connection: ConnectionSettings;
  /** Consumers, each its own group: as many as the fleet's subscribers. */
  readonly consumers: number;
  readonly joinTimeoutSeconds: number;
  /** A memory cgroup of this limit (MiB) around the consumers' process, as the fleet's. */
  readonly podMemoryMiB?: number | undefined;
}

export interface KafkaFloorResult {
  readonly consumers: number;
  /** Seconds from the process's start until every group was Stable with its member; null: not in time. */
  readonly joinSeconds: number | null;
  /** RSS of the process once all joined, MiB. */
  readonly rssMiB: number;
  /** The memory cgroup limit it ran under; null: none. */
  readonly podMemoryMiB: number | null;
}

/** How long the consumers get to leave their groups on SIGTERM. */
const STOP_GRACE_MS = 30_000;

/**
 * What a thousand group members cost in kafkajs alone: plain consumers in one process with one
 * client (floor-process.ts), each in a group of its own on an empty topic of 6 partitions (as the
 * fleet's events topic), no hookstream code. Deletes its groups and topic, also when it fails.
 */
export async function runKafkaFloor(options: KafkaFloorOptions): Promise<KafkaFloorResult> {
  const prefix = `bench-floor-${randomUUID().slice(0, 8)}`;
  const topic = `${prefix}-events`;
  const groups = Array.from(
    { length: options.consumers },
    (_, i) => `${prefix}-${String(i).padStart(5, '0')}`,
  );
  const kafka = createKafka({ ...options.connection.kafka, clientId: 'hookstream-bench-floor', quiet: true });
  const admin = kafka.admin();
  await admin.connect();
  let child: FleetChild | null = null;
  let cgroup: PodCgroup | null = null;
  try {
    await admin.ensureTopics([{ topic, partitions: 6, replicationFactor: 1 }]);
    if (options.podMemoryMiB !== undefined)
      cgroup = await podCgroup(`hookstream-${prefix}`, options.podMemoryMiB);
    options.progress(`floor: ${groups.length} plain kafkajs consumers in one process, a group each`);
    const since = performance.now();
    child = FleetChild.spawn(
      new URL('./floor-process.ts', import.meta.url).pathname,
      [],
      {
        ...process.env,
        ...connectionEnv(options.connection),
        BENCH_FLOOR_TOPIC: topic,
        // The prefix and count, not the names: 5,000 of them would pass the limit of one variable.
        BENCH_FLOOR_PREFIX: prefix,
        BENCH_FLOOR_COUNT: String(groups.length),
      },
      cgroup,
    );
    const running = child;
    const join = await waitUntilJoined(admin, groups, {
      since,
      timeoutMs: options.joinTimeoutSeconds * 1000,
      progress: options.progress,
      failed: () => (running.ended === null ? null : `${running.ended}: ${running.tail()}`),
      signal: options.signal,
    });
    const { rssMiB } = await residentMemory(running.pid);
    options.progress(
      `floor: ${join.joined}/${join.groups} joined after ${join.seconds ?? '—'} s, RSS ${rssMiB} MiB`,
    );
    return {
      consumers: groups.length,
      joinSeconds: join.seconds,
      rssMiB,
      podMemoryMiB: cgroup?.limitMiB ?? null,
    };
  } finally {
    if (child !== null && (await child.stop(STOP_GRACE_MS)) === 'killed') await membersGone(admin, groups);
    await cgroup?.remove();
    await admin
      .deleteGroups(groups)
      .catch((err: unknown) => options.progress(`floor cleanup: ${String(err)}`));
    await admin
      .deleteTopics([topic])
      .catch((err: unknown) => options.progress(`floor cleanup: ${String(err)}`));
    await admin.disconnect();
  }
}

/** The floor's group ids, here and in its process. */
export function floorGroups(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
}

/** A killed process's members stay until their session times out; only then can the groups go. */
async function membersGone(admin: KafkaAdmin, groups: readonly string[]): Promise<void> {
  const deadline = performance.now() + 45_000;
  while (performance.now() < deadline) {
    const states = await admin.groupStates(groups).catch(() => []);
    if (states.every((g) => g.members === 0)) return;
    await sleep(1000);
  }
}
