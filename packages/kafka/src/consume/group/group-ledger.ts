import type { LedgerRewind } from './ledger-rewind.ts';
import type { StartedFrom } from './start-position.ts';

/** One partition's ledger as the broker holds it. */
export interface PartitionReading {
  readonly partition: number;
  /** The group's committed offset: the next record it reads; null where it committed none. */
  readonly committed: number | null;
  /** The partition's earliest offset still in the log; null when unknown. */
  readonly logStart: number | null;
  /** When the committed offset was committed (ms), when its metadata says. */
  readonly committedAtMs?: number | null;
  /** The commit's `openSince` (see PartitionOffset.openSinceMs), when its metadata says. */
  readonly openSinceMs?: number | null;
  /** The partition's end offset (the next to be written); null when unknown. */
  readonly logEnd?: number | null;
  /** The rewind whose range the committed offset is in, when its metadata says (see LedgerRewind). */
  readonly rewind?: LedgerRewind | null;
}

/**
 * Records retention deleted before the group read them: its committed offset was below the
 * partition's log start. `lostFrom` to `lostTo` (inclusive) are gone.
 */
export interface PartitionGap {
  readonly topic: string;
  readonly partition: number;
  readonly lostFrom: number;
  readonly lostTo: number;
  readonly lostCount: number;
  /** When the ledger last moved, when its commit says; null when unknown. */
  readonly lastCommitAtMs: number | null;
  readonly foundAtMs: number;
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
 * the log start starts at the log start: the range between is a gap (`gapAt`), recorded first.
 */
export function joinPosition(reading: PartitionReading | undefined): number {
  const { committed = null, logStart = null } = reading ?? {};
  if (committed !== null && logStart !== null) return Math.max(committed, logStart);
  return committed ?? logStart ?? 0;
}

/** The gap between the ledger and the log start, if the ledger is below it; else null. */
export function gapAt(
  topic: string,
  reading: PartitionReading | undefined,
  nowMs: number,
): PartitionGap | null {
  if (reading === undefined) return null;
  const { committed, logStart } = reading;
  if (committed === null || logStart === null || committed >= logStart) return null;
  return {
    topic,
    partition: reading.partition,
    lostFrom: committed,
    lostTo: logStart - 1,
    lostCount: logStart - committed,
    lastCommitAtMs: reading.committedAtMs ?? null,
    foundAtMs: nowMs,
  };
}
