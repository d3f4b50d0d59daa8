import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { kafkaOf } from '../connection/raw-client.ts';
import { type ConsumedRecord, toConsumedRecord } from './consumed-record.ts';

export interface RawConsumerOptions {
  readonly groupId: string;
  /** How long a fetch waits for data (kafkajs default 5 s); tests want it short. */
  readonly maxWaitTimeInMs?: number;
}

/**
 * A plain consumer group member, one record at a time, for tests and benchmarks that read what
 * arrives (readTopic reads a bounded snapshot instead). Product code consumes through
 * SubscriberConsumer.
 */
export interface RawConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** `fromBeginning` applies to partitions the group has no committed offset for. */
  subscribe(topics: readonly string[], options?: { readonly fromBeginning?: boolean }): Promise<void>;
  /** Starts consuming in the background; resolves once running. */
  run(
    eachRecord: (record: ConsumedRecord) => Promise<void>,
    options?: { readonly autoCommit?: boolean },
  ): Promise<void>;
  /**
   * Starts consuming a fetched batch at a time, `partitions` of them at once; a batch's offsets
   * are committed once its handler resolves, and not at all when it throws (commit after success).
   */
  runBatches(
    eachBatch: (records: readonly ConsumedRecord[]) => Promise<void>,
    options?: { readonly partitions?: number },
  ): Promise<void>;
}

export function createRawConsumer(connection: KafkaConnection, options: RawConsumerOptions): RawConsumer {
  const consumer = kafkaOf(connection).consumer({
    groupId: options.groupId,
    ...(options.maxWaitTimeInMs === undefined ? {} : { maxWaitTimeInMs: options.maxWaitTimeInMs }),
  });
  return {
    connect: () => consumer.connect(),
    disconnect: () => consumer.disconnect(),
    subscribe: (topics, { fromBeginning = false } = {}) =>
      consumer.subscribe({ topics: [...topics], fromBeginning }),
    run: (eachRecord, { autoCommit = true } = {}) =>
      consumer.run({
        autoCommit,
        eachMessage: ({ topic, partition, message }) =>
          eachRecord(toConsumedRecord(topic, partition, message)),
      }),
    runBatches: (eachBatch, { partitions = 1 } = {}) =>
      consumer.run({
        autoCommit: true,
        eachBatchAutoResolve: true,
        partitionsConsumedConcurrently: Math.max(1, Math.min(partitions, 1000)),
        eachBatch: ({ batch }) =>
          eachBatch(batch.messages.map((m) => toConsumedRecord(batch.topic, batch.partition, m))),
      }),
  };
}
