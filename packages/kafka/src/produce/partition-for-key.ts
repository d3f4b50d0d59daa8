import { murmur2Partition } from './murmur2.ts';

/**
 * The partition the default (Java-compatible murmur2) partitioner picks for `key`: where a
 * keyed record was written by RecordSender, so a reader can fetch one partition instead of all.
 * `_topic` names what is read, for the caller's sake: the partitioner does not hash it.
 */
export function partitionForKey(_topic: string, key: string, partitionCount: number): number {
  return keyPartitioner(partitionCount)(key);
}

/** partitionForKey for many keys, the count checked once (the topic does not enter the hash). */
export function keyPartitioner(partitionCount: number): (key: string) => number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1)
    throw new RangeError(`partition count must be a positive integer, got ${partitionCount}`);
  return (key) => murmur2Partition(key, partitionCount);
}
