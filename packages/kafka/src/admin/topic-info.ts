import type { Admin } from 'kafkajs';
import { retryRetriable } from './retriable.ts';

/** A topic's partitions with their earliest (low) and end (high) offsets; null when it does not exist. */
export interface PartitionRange {
  readonly partition: number;
  readonly low: string;
  readonly high: string;
}

export async function topicExists(admin: Admin, topic: string): Promise<boolean> {
  return (await admin.listTopics()).includes(topic);
}

/** The topic's partitions and offsets, or null when the topic does not exist. */
export async function partitionRanges(admin: Admin, topic: string): Promise<PartitionRange[] | null> {
  if (!(await topicExists(admin, topic))) return null;
  return knownPartitionRanges(admin, topic);
}

/** As partitionRanges for a topic known to exist: no listing of every topic first. */
export async function knownPartitionRanges(admin: Admin, topic: string): Promise<PartitionRange[]> {
  // On a cluster of several brokers a topic created a moment ago may be listed before every
  // broker hosts it (UNKNOWN_TOPIC_OR_PARTITION, which kafkajs marks retriable).
  const offsets = await retryRetriable(() => admin.fetchTopicOffsets(topic));
  return offsets
    .map((o) => ({ partition: o.partition, low: o.low, high: o.high }))
    .sort((a, b) => a.partition - b.partition);
}

/** How many brokers answer: bounds the replication factor of topics a tool creates. */
export async function brokerCount(admin: Admin): Promise<number> {
  return (await admin.describeCluster()).brokers.length;
}
