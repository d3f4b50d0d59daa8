import type { Admin } from 'kafkajs';
import { retryRetriable } from './retriable.ts';

/** Records above a group's ledger on one topic, summed over its partitions. */
export interface TopicLag {
  readonly topic: string;
  /** High watermark − committed offset; a partition without a commit counts from its low mark. */
  readonly lag: number;
}

/**
 * The group's lag on each topic, from the broker: end offsets against committed offsets. A
 * partition the group never committed on is read from its beginning (as the subscriber consumer
 * does), so everything still held there counts.
 */
export async function fetchGroupLag(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
): Promise<TopicLag[]> {
  const committed = await retryRetriable(() => admin.fetchOffsets({ groupId, topics: [...topics] }));
  return Promise.all(
    topics.map(async (topic) => {
      const ends = await admin.fetchTopicOffsets(topic);
      const commits = new Map(
        (committed.find((c) => c.topic === topic)?.partitions ?? []).map((p) => [
          p.partition,
          Number(p.offset),
        ]),
      );
      let lag = 0;
      for (const p of ends) {
        const commit = commits.get(p.partition) ?? -1;
        const from = commit >= 0 ? commit : Number(p.low);
        lag += Math.max(0, Number(p.high) - from);
      }
      return { topic, lag };
    }),
  );
}

/** Records a topic holds (high − low watermark over its partitions), e.g. a DLQ's depth. */
export async function fetchTopicDepth(admin: Admin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((sum, p) => sum + Math.max(0, Number(p.high) - Number(p.low)), 0);
}
