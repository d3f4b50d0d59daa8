import type { Admin } from 'kafkajs';
import type { TopicLedger } from './group-ledger-read.ts';

/** Records above a group's ledger on one topic, summed over its partitions. */
export interface TopicLag {
  readonly topic: string;
  /** High watermark − committed offset; a partition without a commit counts from its low mark. */
  readonly lag: number;
}

/**
 * A group's lag on one topic from its ledger there: end offsets against committed offsets. A
 * partition the group never committed on is read from its beginning (as the subscriber consumer
 * does), so everything still held there counts.
 */
export function lagOf(topic: string, { committed, ranges }: TopicLedger): TopicLag {
  const commits = new Map(committed.map((c) => [c.partition, c.offset === null ? -1 : Number(c.offset)]));
  let lag = 0;
  for (const p of ranges) {
    const commit = commits.get(p.partition) ?? -1;
    const from = commit >= 0 ? commit : Number(p.low);
    lag += Math.max(0, Number(p.high) - from);
  }
  return { topic, lag };
}

/** Records a topic holds (high − low watermark over its partitions), e.g. a DLQ's depth. */
export async function fetchTopicDepth(admin: Admin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((sum, p) => sum + Math.max(0, Number(p.high) - Number(p.low)), 0);
}
