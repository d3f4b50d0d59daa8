import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import { KafkaReadError } from '../errors.ts';
import { retryRetriable } from './retriable.ts';

/** Times a topic listing is asked for when no broker answered, and the wait after the first. */
const LIST_ATTEMPTS = 4;
const LIST_RETRY_MS = 250;

/**
 * Every topic's name. kafkajs 2.2.4's listTopics asks each broker in turn and, when none answers
 * (a request timed out, a connection the broker had closed), destructures the null it got: a
 * TypeError about `topicMetadata` (kafkajs issue #549), which failed `subscribers list` under a
 * loaded CI. Asked again, then reported as Kafka being unavailable, which it is.
 */
export async function listTopicNames(admin: Admin): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await admin.listTopics();
    } catch (err) {
      if (!(err instanceof TypeError && err.message.includes('topicMetadata'))) throw err;
      if (attempt >= LIST_ATTEMPTS)
        throw new KafkaReadError('KAFKA_UNAVAILABLE', 'no broker answered a request for the topic list', {
          cause: err,
        });
      await sleep(LIST_RETRY_MS * attempt);
    }
  }
}

/** A topic's partitions with their earliest (low) and end (high) offsets; null when it does not exist. */
export interface PartitionRange {
  readonly partition: number;
  readonly low: string;
  readonly high: string;
}

export async function topicExists(admin: Admin, topic: string): Promise<boolean> {
  return (await listTopicNames(admin)).includes(topic);
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
