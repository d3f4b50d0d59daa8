import { setTimeout as sleep } from 'node:timers/promises';
import type { LogFn } from '@hookstream/contracts';
import {
  type ConsumedRecord,
  carriedRewind,
  type LedgerRewind,
  markedRecord,
  type RewindMark,
  rewindMarkOf,
} from '@hookstream/kafka';
import { type HandlerOutcome, type RecordHandler, runInKeyOrder } from '../record-handler.ts';
import { OffsetTracker } from './offset-tracker.ts';
import { type SettledOffsets, settledFrom } from './settled-offsets.ts';

/**
 * The first wait before a record whose handler failed runs again, and the longest: a Kafka or
 * Redis outage ends within seconds of its cause, and a longer wait only delays the records
 * behind it (the ledger waits for this one).
 */
const HANDLER_RETRY_FIRST_MS = 200;
const HANDLER_RETRY_MAX_MS = 5_000;

/** What a lane gives its ledger: everything but the hook, which the lane supplies itself. */
export type LaneLedgerOptions = Omit<PartitionLedgerOptions, 'ended'>;

export interface PartitionLedgerOptions {
  readonly topic: string;
  readonly partition: number;
  /** Where the group's ledger stands: its committed offset, or the log start where it has none. */
  readonly ledger: number;
  /**
   * Settled offsets at or past the ledger the lane passes over: what this member's revoked lanes
   * of the partition settled and had not committed, and records whose copy is already downstream.
   */
  readonly settled?: SettledOffsets | null;
  readonly handle: RecordHandler;
  readonly ordering: 'none' | 'key';
  readonly log: LogFn;
  /** After each record ends, settled or not, and before idle() resolves: the lane starts what waits. */
  readonly ended: (offset: number) => void;
  /**
   * The rewind the group's ledger was read in (events topic only): records below its
   * `untilOffset` reach the handler marked `rewound`, and commits below it carry it forward.
   */
  readonly rewind?: LedgerRewind | null;
}

/**
 * The ledger rule for one partition a group member holds, shared by its events and tier lanes:
 * records begin in offset order and may settle in any order, but only the contiguous settled
 * prefix is committable. It runs the records (one per key at a time with ordering `key`), knows
 * how many are in flight, when none is, the oldest unsettled record's timestamp and what to
 * commit. Where the records come from, and when each may start, is the lane's business.
 */
export class PartitionLedger {
  readonly topic: string;
  readonly partition: number;
  readonly #options: PartitionLedgerOptions;
  readonly #tracker = new OffsetTracker();
  readonly #controller = new AbortController();
  readonly #keyTails = new Map<string, Promise<HandlerOutcome>>();
  /** Offset → Kafka timestamp of records begun and not settled. */
  readonly #held = new Map<number, number>();
  /** Offset → this process's clock when it began, for the same records; in the order they began. */
  readonly #begunAt = new Map<number, number>();
  /** Offsets settled by an earlier lane of the partition, beyond where this one starts. */
  readonly #settledBefore: Set<number>;
  #idleWaiters: (() => void)[] = [];
  #inFlight = 0;
  /** The next offset neither begun nor passed over. */
  #next: number;
  #committed: number;
  /** When commitDue first saw passed-over records to commit (nothing settled); null: none since the last commit. */
  #movedAtMs: number | null = null;
  #settledSinceCommit: boolean;
  readonly #rewind: LedgerRewind | null;
  /** The one mark every record of the rewound range shares. */
  readonly #rewindMark: RewindMark | null;

  constructor(options: PartitionLedgerOptions) {
    this.#options = options;
    this.topic = options.topic;
    this.partition = options.partition;
    const { ledger, settled } = options;
    // Past the ledger when the consumer before this one settled further and had not committed
    // it yet (the ledger is committed about once a second).
    const from = Math.max(ledger, settled?.before ?? ledger);
    this.#committed = ledger;
    this.#next = from;
    this.#settledSinceCommit = from > ledger;
    this.#settledBefore = new Set(settled?.ahead.filter((o) => o >= from));
    this.#rewind = options.rewind ?? null;
    this.#rewindMark = this.#rewind === null ? null : rewindMarkOf(this.#rewind);
  }

  /** The next offset neither begun nor passed over. */
  get next(): number {
    return this.#next;
  }

  /** Records running now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Counted against the ledger from here: the committable prefix stops before it until it settles. */
  begin(offset: number, timestampMs: number): void {
    this.#tracker.begin(offset);
    this.#next = offset + 1;
    this.#held.set(offset, timestampMs);
    this.#begunAt.set(offset, Date.now());
  }

  /** Everything below `offset` was taken or passed over (a record not wanted, a tap's cursor). */
  skipTo(offset: number): void {
    if (offset > this.#next) this.#next = offset;
  }

  /** An offset an earlier lane of the partition settled: counted settled here too, never begun again. */
  passSettled(offset: number): boolean {
    if (!this.#settledBefore.delete(offset)) return false;
    this.#tracker.begin(offset);
    this.#tracker.settle(offset);
    this.#next = offset + 1;
    return true;
  }

  /**
   * Runs a begun record; it settles when the handler says its outcome is durable. A record of a
   * rewound range is handed over marked (`rewound`).
   */
  run(record: ConsumedRecord, offset: number): void {
    const { ordering, ended } = this.#options;
    this.#inFlight++;
    const handed = markedRecord(record, offset, this.#rewind, this.#rewindMark);
    runInKeyOrder(this.#handleUntilDone, ordering, handed, this.#controller.signal, this.#keyTails)
      .then((outcome) => {
        if (outcome !== 'settled') return;
        this.#held.delete(offset);
        this.#begunAt.delete(offset);
        this.#tracker.settle(offset);
        this.#settledSinceCommit = true;
      })
      .finally(() => {
        this.#inFlight--;
        ended(offset);
        if (this.#inFlight === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      });
  }

  /**
   * The handler's outcome. A handler turns what an endpoint does into an outcome; it throws only
   * when the pusher itself could not go on (Redis or Kafka failing under it). Such a record used
   * to stay unsettled, holding the ledger, until its lane restarted: now it runs again after a
   * wait that grows to HANDLER_RETRY_MAX_MS, in its place (a key's later records still wait for
   * it), until it ends or the lane stops.
   */
  readonly #handleUntilDone: RecordHandler = async (record, signal) => {
    for (let failures = 1; ; failures++) {
      try {
        return await this.#options.handle(record, signal);
      } catch (err) {
        const retryInMs = Math.min(HANDLER_RETRY_FIRST_MS * 2 ** (failures - 1), HANDLER_RETRY_MAX_MS);
        this.#options.log('error', 'record handler failed; running the record again', {
          topic: this.topic,
          partition: this.partition,
          offset: Number(record.offset),
          failures,
          retryInMs,
          error: err instanceof Error ? err.message : String(err),
        });
        try {
          await sleep(retryInMs, undefined, { signal });
        } catch {
          return 'abandoned';
        }
      }
    }
  };

  /** Ends the waits of the records in flight (limiter, breaker, retry delay); they end as abandoned. */
  abort(): void {
    this.#controller.abort();
  }

  /** Settles once nothing begun is still running. */
  async idle(): Promise<void> {
    while (this.#inFlight > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Kafka timestamp of the oldest record begun and not settled; null when none. */
  oldestUnsettled(): number | null {
    let oldest: number | null = null;
    for (const ts of this.#held.values()) if (oldest === null || ts < oldest) oldest = ts;
    return oldest;
  }

  /**
   * When (this process's clock) the record that began first of those not settled began; null
   * when none. No copy of a record above the ledger was written before it: a commit says so as
   * `openSince`, and a later join looks for copies from then. Not the record's Kafka timestamp,
   * which is when the event was produced, days ago for a backlog or after a rewind.
   */
  oldestBegunAt(): number | null {
    for (const at of this.#begunAt.values()) return at;
    return null;
  }

  /**
   * The offset to commit (the next record the group should read): the first unsettled record,
   * else the next not taken, or `seen` when the lane knows everything before it was passed over.
   */
  commitTarget(seen = this.#next): number {
    return this.#tracker.firstUnsettled ?? Math.max(this.#next, seen);
  }

  /**
   * The commit target when it moved since the last commit; `quietMs` since then is enough when
   * only passed-over records moved it, so a subscriber of rare types does not commit every second.
   */
  commitDue(nowMs: number, quietMs: number, seen?: number): number | null {
    const target = this.commitTarget(seen);
    if (target <= this.#committed) return null;
    if (this.#settledSinceCommit) return target;
    // Passed-over records only: committed quietMs after they were first seen, not after the last
    // commit. A fleet's idle subscribers all see the same records pass (another subscriber's
    // type): counted from their last commit, long ago, every one of them would commit at once.
    this.#movedAtMs ??= nowMs;
    return nowMs - this.#movedAtMs < quietMs ? null : target;
  }

  /** The rewind a commit at `offset` carries forward; null once past its range (or none). */
  rewindAt(offset: number): LedgerRewind | null {
    return carriedRewind(this.#rewind, offset);
  }

  /** The group committed `offset`. */
  committed(offset: number): void {
    if (offset > this.#committed) this.#committed = offset;
    this.#movedAtMs = null;
    // Records that settled while the commit was on its way moved the target past it: they are
    // due at the next commit, not after the quiet period.
    if (this.commitTarget() <= offset) this.#settledSinceCommit = false;
  }

  /** What this lane settled, for the group's next consumer in this process. */
  settled(seen?: number): SettledOffsets {
    return settledFrom(this.commitTarget(seen), [...this.#tracker.settledAhead, ...this.#settledBefore]);
  }
}
