import { randomInt } from 'node:crypto';

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/**
 * Kafka's murmur2 (Java's `Utils.murmur2`) in 32-bit integer arithmetic. kafkajs's own emulates
 * 64-bit Longs per byte, which made partitioning a keyed record cost about as much as encoding
 * it; the partitions are the same (held to kafkajs's by a test over many keys).
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i << 2;
    let k =
      (data[i4] as number) |
      ((data[i4 + 1] as number) << 8) |
      ((data[i4 + 2] as number) << 16) |
      ((data[i4 + 3] as number) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The tail's bytes, folded in as Java's switch falls through its cases.
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= (data[tail + 2] as number) << 16;
  if (rest >= 2) h ^= (data[tail + 1] as number) << 8;
  if (rest >= 1) h = Math.imul(h ^ (data[tail] as number), M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition the default (Java-compatible) partitioner gives a key. */
export function murmur2Partition(key: string | Buffer, partitionCount: number): number {
  const data = typeof key === 'string' ? Buffer.from(key) : key;
  return (murmur2(data) & 0x7fffffff) % partitionCount;
}

/** What kafkajs hands a partitioner (the parts the default one reads). */
export interface PartitionerArgs {
  readonly topic: string;
  readonly partitionMetadata: readonly { readonly partitionId: number; readonly leader: number }[];
  readonly message: { readonly key?: string | Buffer | null; readonly partition?: number | null };
}

/**
 * kafkajs's default partitioner with the fast murmur2: an explicit partition wins; a keyed
 * message goes where Java's client would put it; an unkeyed one round-robins over the
 * partitions that have a leader, from a random start per topic (as kafkajs's does).
 */
export function createMurmur2Partitioner(): (args: PartitionerArgs) => number {
  const counters = new Map<string, number>();
  return ({ topic, partitionMetadata, message }) => {
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    if (message.key !== null && message.key !== undefined)
      return murmur2Partition(message.key, partitionMetadata.length);
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    const next = (counters.get(topic) ?? randomInt(2 ** 31)) + 1;
    counters.set(topic, next);
    if (available.length > 0)
      return (available[(next & 0x7fffffff) % available.length] as { partitionId: number }).partitionId;
    return (next & 0x7fffffff) % partitionMetadata.length;
  };
}
