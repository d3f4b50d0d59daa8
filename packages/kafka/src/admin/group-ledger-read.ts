import { type BatchCluster, partitionLeaders } from './cluster-metadata.ts';
import { fetchGroupTopicsOffsets } from './group-batch-offsets.ts';
import { type CommittedOffset, committedOffsetsOf } from './group-offsets.ts';
import { EARLIEST, LATEST, offsetsAt } from './topic-depths.ts';
import type { PartitionRange } from './topic-info.ts';

/** Where the partitions of the topics are led (partitionLeaders, or a LeaderCache's). */
export type Leaders = (
  cluster: BatchCluster,
  topics: readonly string[],
) => Promise<ReadonlyMap<string, readonly { partition: number; leader: number }[]>>;

/** A group's ledger on one topic: what it committed, and each partition's log start and end. */
export interface TopicLedger {
  readonly committed: CommittedOffset[];
  readonly ranges: PartitionRange[];
}

/**
 * A group's ledger on topics that exist, in one round: one Metadata request for all of them, one
 * FindCoordinator and one OffsetFetch, two ListOffsets per leader. kafkajs's admin asks per topic
 * and makes every topic it is asked about a target of its metadata, which it then refreshes whole
 * at each new one: a fleet whose subscribers each read six topics at a join paid that many times
 * over. Null when the batch cannot answer (the caller asks the kafkajs way).
 */
export async function fetchGroupLedger(
  cluster: BatchCluster,
  groupId: string,
  topics: readonly string[],
  leadersOf: Leaders = (c, ts) => partitionLeaders(c, ts),
): Promise<Map<string, TopicLedger> | null> {
  const leaders = await leadersOf(cluster, topics);
  if (topics.some((t) => (leaders.get(t)?.length ?? 0) === 0)) return null;
  const partitions = new Map(
    [...leaders].map(([t, ps]) => [t, ps.map((p) => p.partition).sort((a, b) => a - b)] as const),
  );
  try {
    const [committed, high, low] = await Promise.all([
      fetchGroupTopicsOffsets(cluster, groupId, partitions),
      offsetsAt(cluster, leaders, LATEST),
      offsetsAt(cluster, leaders, EARLIEST),
    ]);
    if (committed === null) return null;
    const out = new Map<string, TopicLedger>();
    for (const topic of topics) {
      const lows = low.get(topic) ?? new Map<number, number>();
      const ranges = (partitions.get(topic) ?? []).map((partition) => ({
        partition,
        low: String(lows.get(partition) ?? 0),
        high: String(high.get(topic)?.get(partition) ?? 0),
      }));
      const lowStrings = new Map(ranges.map((r) => [r.partition, r.low]));
      out.set(topic, { committed: committedOffsetsOf(committed.get(topic) ?? [], lowStrings), ranges });
    }
    return out;
  } catch (err) {
    // A leader moved or a broker went: the next read knows the brokers again.
    await cluster.refreshMetadata().catch(() => undefined);
    throw err;
  }
}
