import type { StartedFrom } from './start-position.ts';

/** One partition's ledger as the broker holds it. */
export interface PartitionReading {
  readonly partition: number;
  /** The group's committed offset: the next record it reads; null where it committed none. */
  readonly committed: number | null;
  /** The partition's earliest offset still in the log; null when unknown. */
  readonly logStart: number | null;
}

/** A group's committed offsets (its ledger), read and prepared outside the group protocol. */
export interface GroupLedger {
  /** Positions a brand-new group at its start before it joins; an existing group keeps its ledger. */
  prepare(): Promise<StartedFrom>;
  /** One read of the ledger and the log starts of `topics`; throws when Kafka does not answer. */
  read(topics: readonly string[]): Promise<ReadonlyMap<string, readonly PartitionReading[]>>;
}

/**
 * Where a lane of the partition starts at a join: its committed offset, else its log start
 * (partitions added after the group began, tiers never committed on). A committed offset below
 * the log start is taken as it is: the member's fetch is then refused (OFFSET_OUT_OF_RANGE),
 * kafkajs resets the partition to the log start with a line in its own log, and nothing of
 * hookstream reports the records retention deleted.
 */
export function joinPosition(reading: PartitionReading | undefined): number {
  return reading?.committed ?? reading?.logStart ?? 0;
}
