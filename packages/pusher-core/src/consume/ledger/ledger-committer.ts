import type { LogFn } from '@hookstream/contracts';
import type { GroupMember, PartitionOffset } from '@hookstream/kafka';
import type { Lane } from '../lanes/lane.ts';

/**
 * A ledger moved only by passed-over records (other types) is committed this long after they were
 * first seen, plus up to as much again, the same share for all of one member's partitions.
 */
const QUIET_COMMIT_MS = 10_000;

export interface LedgerCommitterOptions {
  readonly member: GroupMember;
  /** The lanes of the current assignment. */
  readonly lanes: () => readonly Lane[];
  /** The member's generation of lanes: a commit that lands after the next revoke counts for nothing. */
  readonly generation: () => number;
  readonly log: LogFn;
}

/**
 * Moves the group's committed offsets to each lane's commit target, one commit at a time. A
 * failed commit (a rebalance, Kafka away) is only logged: the next one sends the offsets again.
 */
export class LedgerCommitter {
  readonly #options: LedgerCommitterOptions;
  #committing: Promise<void> | null = null;
  /** Spreads a fleet's quiet commits: its members see the same records pass at the same time. */
  readonly #quietMs = QUIET_COMMIT_MS * (1 + Math.random());

  constructor(options: LedgerCommitterOptions) {
    this.#options = options;
  }

  /** Commits each partition's settled prefix that moved; `final`: everything that moved, at once. */
  commit(final: boolean): Promise<void> {
    return this.#commit(final, this.#options.lanes);
  }

  /**
   * Commits everything these lanes settled that moved, at once: revoked lanes at a rebalance,
   * before the member rejoins (its generation still counts then).
   */
  commitLanes(lanes: readonly Lane[]): Promise<void> {
    return this.#commit(true, () => lanes);
  }

  #commit(final: boolean, lanes: () => readonly Lane[]): Promise<void> {
    if (this.#committing !== null)
      return final ? this.#committing.then(() => this.#commit(true, lanes)) : this.#committing;
    const { member, generation, log } = this.#options;
    const now = Date.now();
    const due: (PartitionOffset & { openSinceMs: number; done: () => void })[] = [];
    for (const lane of lanes()) {
      const offset = lane.commitDue(now, final ? 0 : this.#quietMs);
      if (offset !== null)
        due.push({
          topic: lane.topic,
          partition: lane.partition,
          offset,
          // Copies of records above the offset were written after those records were taken.
          openSinceMs: Math.min(now, lane.oldestBegunAt() ?? now),
          // Still in a rewound range: the commit keeps its mark for whoever joins next.
          rewind: lane.rewindAt(offset),
          done: () => lane.committed(offset),
        });
    }
    if (due.length === 0) return Promise.resolve();
    // The lanes a late commit was for are gone by then; the next join's start from the ledger read there.
    const at = generation();
    this.#committing = member
      .commit(
        due.map(({ topic, partition, offset, openSinceMs, rewind = null }) => ({
          topic,
          partition,
          offset,
          openSinceMs,
          rewind,
        })),
      )
      .then(() => {
        if (at === generation()) for (const o of due) o.done();
      })
      .catch((err: unknown) =>
        // The group is rebalancing or Kafka is away: the next commit tries again.
        log('debug', 'commit failed; trying again', {
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        this.#committing = null;
      });
    return this.#committing;
  }
}
