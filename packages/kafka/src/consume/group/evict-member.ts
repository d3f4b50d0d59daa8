import { setTimeout as sleep } from 'node:timers/promises';
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
 * until the coordinator answers, within `withinMs`. Only for an id no live consumer uses.
 */
export async function evictMember({
  kafka,
  groupId,
  memberId,
  withinMs,
}: EvictMemberOptions): Promise<EvictionOutcome> {
  const deadline = Date.now() + withinMs;
  const cluster = createInternalCluster(kafkaOf(kafka)) as CoordinatorCluster;
  try {
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
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}
