import { Partitioners } from 'kafkajs';

const partitioner = Partitioners.DefaultPartitioner();

/**
 * The partition the default (Java-compatible murmur2) partitioner picks for `key`: where a
 * keyed record was written by RecordSender, so a reader can fetch one partition instead of all.
 */
export function partitionForKey(topic: string, key: string, partitionCount: number): number {
  return keyPartitioner(topic, partitionCount)(key);
}

/**
 * partitionForKey for many keys of one topic: the partition metadata the partitioner reads is
 * built once, not per key.
 */
export function keyPartitioner(topic: string, partitionCount: number): (key: string) => number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1)
    throw new RangeError(`partition count must be a positive integer, got ${partitionCount}`);
  const partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return (key) => partitioner({ topic, partitionMetadata, message: { key, value: null } });
}
