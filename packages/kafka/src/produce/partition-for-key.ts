import { murmur2Partition } from './murmur2.ts';

/**
 * The partition the default (Java-compatible murmur2) partitioner picks for `key`: where a
 * keyed record was written by RecordSender, so a reader can fetch one partition instead of all.
 */
export function partitionForKey(topic: string, key: string, partitionCount: number): number {
  return keyPartitioner(topic, partitionCount)(key);
}

/** partitionForKey for many keys of one topic, the count checked once. */
export function keyPartitioner(_topic: string, partitionCount: number): (key: string) => number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1)
    throw new RangeError(`partition count must be a positive integer, got ${partitionCount}`);
  return (key) => murmur2Partition(key, partitionCount);
}
