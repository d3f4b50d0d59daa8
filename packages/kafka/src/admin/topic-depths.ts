import { type BatchCluster, partitionLeaders } from './cluster-metadata.ts';

/** ListOffsets' timestamps for a partition's end and start. */
const LATEST = -1;
const EARLIEST = -2;

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
  const byLeader = new Map<number, Map<string, number[]>>();
  for (const [topic, partitions] of leaders)
    for (const p of partitions) {
      const mine = byLeader.get(p.leader) ?? new Map<string, number[]>();
      mine.set(topic, [...(mine.get(topic) ?? []), p.partition]);
      byLeader.set(p.leader, mine);
    }
  const offsets = new Map<string, number>();
  try {
    await Promise.all(
      [...byLeader].flatMap(([leader, mine]) =>
        [LATEST, EARLIEST].map(async (timestamp) => {
          const broker = await cluster.findBroker({ nodeId: String(leader) });
          const { responses } = await broker.listOffsets({
            isolationLevel: cluster.isolationLevel,
            topics: [...mine].map(([topic, partitions]) => ({
              topic,
              partitions: partitions.map((partition) => ({ partition, timestamp })),
            })),
          });
          for (const t of responses)
            for (const p of t.partitions)
              offsets.set(`${timestamp}:${p.partition}:${t.topic}`, Number(p.offset));
        }),
      ),
    );
  } catch (err) {
    // A leader moved or a broker went: the next try knows the brokers again.
    await cluster.refreshMetadata().catch(() => undefined);
    throw err;
  }
  for (const [topic, partitions] of leaders)
    depths.set(
      topic,
      partitions.reduce((sum, { partition }) => {
        const high = offsets.get(`${LATEST}:${partition}:${topic}`) ?? 0;
        const low = offsets.get(`${EARLIEST}:${partition}:${topic}`) ?? 0;
        return sum + Math.max(0, high - low);
      }, 0),
    );
  return depths;
}
