import { type BatchCluster, partitionLeaders } from './cluster-metadata.ts';

/** ListOffsets' timestamps for a partition's end and start. */
export const LATEST = -1;
export const EARLIEST = -2;

/**
 * Records each topic holds (high − low over its partitions), as kafkajs's fetchTopicOffsets
 * gives each: one Metadata request for all of them and one ListOffsets per leader and end, where
 * kafkajs's admin asks per topic.
 */
export async function fetchTopicDepths(
  cluster: BatchCluster,
  topics: readonly string[],
): Promise<Map<string, number>> {
  const depths = new Map<string, number>();
  if (topics.length === 0) return depths;
  const leaders = await partitionLeaders(cluster, topics);
  const [high, low] = await Promise.all([
    offsetsAt(cluster, leaders, LATEST),
    offsetsAt(cluster, leaders, EARLIEST),
  ]);
  for (const [topic, ends] of high) {
    let sum = 0;
    for (const [partition, end] of ends) sum += Math.max(0, end - (low.get(topic)?.get(partition) ?? 0));
    depths.set(topic, sum);
  }
  return depths;
}

/** Each partition's offset at `timestamp` (LATEST, EARLIEST), by topic: one ListOffsets per leader. */
export async function offsetsAt(
  cluster: BatchCluster,
  leaders: ReadonlyMap<string, readonly { partition: number; leader: number }[]>,
  timestamp: number,
): Promise<Map<string, Map<number, number>>> {
  const offsets = new Map<string, Map<number, number>>();
  const byLeader = new Map<number, Map<string, number[]>>();
  for (const [topic, partitions] of leaders) {
    offsets.set(topic, new Map());
    for (const p of partitions) {
      const mine = byLeader.get(p.leader) ?? new Map<string, number[]>();
      mine.set(topic, [...(mine.get(topic) ?? []), p.partition]);
      byLeader.set(p.leader, mine);
    }
  }
  try {
    await Promise.all(
      [...byLeader].map(async ([leader, mine]) => {
        const broker = await cluster.findBroker({ nodeId: String(leader) });
        const { responses } = await broker.listOffsets({
          isolationLevel: cluster.isolationLevel,
          topics: [...mine].map(([topic, partitions]) => ({
            topic,
            partitions: partitions.map((partition) => ({ partition, timestamp })),
          })),
        });
        for (const t of responses)
          for (const p of t.partitions) offsets.get(t.topic)?.set(p.partition, Number(p.offset));
      }),
    );
  } catch (err) {
    // A leader moved or a broker went: the next try knows the brokers again.
    await cluster.refreshMetadata().catch(() => undefined);
    throw err;
  }
  return offsets;
}
