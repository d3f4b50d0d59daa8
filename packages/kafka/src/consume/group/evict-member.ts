import { setTimeout as sleep } from 'node:timers/promises';
import { Semaphore } from '@hookstream/concurrency';
import { createInternalCluster, type InternalCluster } from '../../admin/record-samples.ts';
import type { KafkaConnection } from '../../connection/kafka-connection.ts';
import { kafkaOf } from '../../connection/raw-client.ts';

/** What eviction uses of kafkajs's cluster beyond the sampling reads: the coordinator's LeaveGroup. */
interface CoordinatorCluster extends InternalCluster {
  findGroupCoordinator(options: { groupId: string }): Promise<{
    leaveGroup(request: { groupId: string; memberId: string }): Promise<unknown>;
  }>;
}

/** How long between tries while the coordinator is away or moving. */
const EVICT_RETRY_MS = 500;
/**
 * Evictions under way at once in the process: a broker lost under a fleet crashes many of its
 * members together, and a thousand loops asking every half second would load the brokers left.
 */
const EVICTIONS_AT_ONCE = 8;
const slots = new Semaphore(EVICTIONS_AT_ONCE);

/** One cluster per connection for every eviction under way, disconnected when the last ends. */
const shared = new Map<KafkaConnection, { cluster: CoordinatorCluster; users: number }>();

function useCluster(kafka: KafkaConnection): CoordinatorCluster {
  let entry = shared.get(kafka);
  if (entry === undefined) {
    entry = { cluster: createInternalCluster(kafkaOf(kafka)) as CoordinatorCluster, users: 0 };
    shared.set(kafka, entry);
  }
  entry.users++;
  return entry.cluster;
}

async function releaseCluster(kafka: KafkaConnection): Promise<void> {
  const entry = shared.get(kafka);
  if (entry === undefined || --entry.users > 0) return;
  shared.delete(kafka);
  await entry.cluster.disconnect().catch(() => undefined);
}

/** How an eviction ended: `left`, the coordinator took the member out; `gone`, it was out already. */
export type EvictionOutcome = 'left' | 'gone' | 'timed-out';

export interface EvictMemberOptions {
  readonly kafka: KafkaConnection;
  readonly groupId: string;
  readonly memberId: string;
  /** Give up after this long: by then the member's session has expired anyway. */
  readonly withinMs: number;
}

/**
 * Takes a dead member out of its group (LeaveGroup on its behalf). kafkajs restarts a crashed
 * consumer as a new member without the old one having left when the crash was the coordinator
 * going away: the group then waits for the old member's session to time out (30 s by default)
 * before the new one's join completes, and the subscriber delivers nothing meanwhile. Tries
 * until the coordinator answers, within `withinMs`, at most EVICTIONS_AT_ONCE at a time in the
 * process over one cluster per connection. Only for an id no live consumer uses.
 */
export async function evictMember({
  kafka,
  groupId,
  memberId,
  withinMs,
}: EvictMemberOptions): Promise<EvictionOutcome> {
  const deadline = Date.now() + withinMs;
  await slots.acquire();
  const cluster = useCluster(kafka);
  try {
    return await leaveOnBehalf(cluster, { groupId, memberId, deadline });
  } finally {
    slots.release();
    await releaseCluster(kafka);
  }
}

/** Sends LeaveGroup for `memberId` until the coordinator answers or `deadline` (epoch ms) passes. */
export async function leaveOnBehalf(
  cluster: Pick<CoordinatorCluster, 'connect' | 'findGroupCoordinator' | 'refreshMetadata'>,
  { groupId, memberId, deadline }: { groupId: string; memberId: string; deadline: number },
): Promise<EvictionOutcome> {
  while (Date.now() < deadline) {
    try {
      await cluster.connect();
      const coordinator = await cluster.findGroupCoordinator({ groupId });
      await coordinator.leaveGroup({ groupId, memberId });
      return 'left';
    } catch (err) {
      const type = (err as { type?: unknown }).type;
      // Left already (its own leave got through) or the group is gone: nothing holds the join.
      if (type === 'UNKNOWN_MEMBER_ID' || type === 'GROUP_ID_NOT_FOUND') return 'gone';
      await sleep(Math.min(EVICT_RETRY_MS, Math.max(0, deadline - Date.now())));
      await cluster.refreshMetadata().catch(() => undefined);
    }
  }
  return 'timed-out';
}
