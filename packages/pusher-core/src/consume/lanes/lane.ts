import type { LedgerRewind } from '@hookstream/kafka';
import type { SettledOffsets } from '../ledger/settled-offsets.ts';

/** What the group member's driver sees of a lane: one partition it holds, events topic or tier. */
export interface Lane {
  readonly topic: string;
  readonly partition: number;
  /** Takes nothing more; records begun end on their own (`abort`: their waits end now). */
  hold(abort: boolean): void;
  /** Settles once nothing begun is still running. */
  idle(): Promise<void>;
  /**
   * The offset to commit when the ledger moved since the last commit, else null. `quietMs`: how
   * long a ledger moved only by records passed over may wait (events lanes pass over the types
   * the subscriber does not want).
   */
  commitDue(nowMs: number, quietMs: number): number | null;
  /** The group committed `offset`. */
  committed(offset: number): void;
  /** The rewind a commit at `offset` carries forward (see carriedRewind); null when none. */
  rewindAt(offset: number): LedgerRewind | null;
  /** What this lane settled, for the group's next consumer in this process. */
  settled(): SettledOffsets;
  /** Kafka timestamp of the oldest record taken and not settled; null when none. */
  oldestUnsettled(): number | null;
  /** When (this process's clock) the first of the records not settled was taken; null when none. */
  oldestBegunAt(): number | null;
}
