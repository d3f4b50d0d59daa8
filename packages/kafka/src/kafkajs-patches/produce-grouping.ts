import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** What kafkajs's `sendMessages` passes to its grouping function for one topic. */
export interface GroupingInput<M> {
  readonly topic: string;
  readonly partitionMetadata: readonly unknown[];
  readonly messages: readonly M[];
  readonly partitioner: (args: {
    topic: string;
    partitionMetadata: readonly unknown[];
    message: M;
  }) => number;
}

/**
 * kafkajs 2.2.4 groups a send's messages by partition with a reduce that copies the partition's
 * array and the result object for every message: quadratic in the messages per partition, paid on
 * every send (the ingress's micro-batches, the attempt log's flushes). The send of `produce-retry`
 * groups with this instead, once per send; it builds the same object
 * (same keys, each array in message order, the partitioner called once per message in order) in
 * one pass.
 */
export function groupMessagesPerPartition<M>({
  topic,
  partitionMetadata,
  messages,
  partitioner,
}: GroupingInput<M>): Record<number, M[]> {
  if (partitionMetadata.length === 0) return {};
  const result: Record<number, M[]> = {};
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    const current = result[partition];
    if (current === undefined) result[partition] = [message];
    else current.push(message);
  }
  return result;
}

/** kafkajs's own grouping module, which the send no longer loads (its tests compare the two). */
export function kafkajsGroupingPath(): string {
  return require.resolve('kafkajs/src/producer/groupMessagesPerPartition.js');
}
