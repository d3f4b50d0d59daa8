import type { KafkaAdmin } from '@hookstream/kafka';

/** Topics of subscribers named `<prefix>…` (tiers, DLQs, replay logs) and their partitions. */
export interface OwnTopics {
  readonly topics: number;
  readonly partitions: number;
}

/**
 * What the subscribers' own topics cost the broker: each subscriber's tiers and DLQ, made when it
 * starts. Names as contracts' subscriberNames derives them: `hookstream.sub.<name>.<suffix>`.
 */
export async function ownTopics(admin: KafkaAdmin, prefix: string): Promise<OwnTopics> {
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(`hookstream.sub.${prefix}`));
  // One metadata request for all of them: asked one by one, each would list every topic first.
  const ends = await admin.partitionEnds(topics);
  let partitions = 0;
  for (const byPartition of ends.values()) partitions += byPartition.size;
  return { topics: topics.length, partitions };
}
