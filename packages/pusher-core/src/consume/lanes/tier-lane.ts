import { type ConsumedRecord, keptRecord, type LedgerRewind } from '@hookstream/kafka';
import { type LaneLedgerOptions, PartitionLedger } from '../ledger/partition-ledger.ts';
import type { SettledOffsets } from '../ledger/settled-offsets.ts';
import { type MemoryBudget, recordBytes } from '../memory-budget.ts';
import type { Lane } from './lane.ts';

/** The longest a Node timer can wait (2^31 - 1 ms, 24.8 days); past it a timer fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** What a tier lane needs of the group member that fetches its partition. */
export interface TierFetch {
  /** Fetch nothing more of the partition: the lane holds as many records as it may. */
  pause(): void;
  resume(): void;
}

export interface TierLaneOptions extends LaneLedgerOptions {
  /** When a record may be handed over (ms since epoch), or null for at once. */
  readonly dueAtMs: (record: ConsumedRecord) => number | null;
  /** Records in flight at once. */
  readonly window: number;
  /** Records taken and not ended (in flight or waiting for their due time) at most. */
  readonly capacity: number;
  readonly fetch: TierFetch;
  /** The process's budget: every record the lane takes is charged to it until it ends. */
  readonly budget?: MemoryBudget | null;
}

interface Waiting {
  readonly record: ConsumedRecord;
  readonly offset: number;
  readonly dueAt: number;
}

/**
 * One retry-tier partition a group member holds. Fetched records are taken into the lane (the
 * fetch moves past them at once) and each starts on a timer at its own due time, so a retry is
 * late only by the timer, and a slow or waiting record never holds the next fetch. Jitter makes
 * due times within a tier out of order; records start in due order (with ordering `key`, never
 * before an earlier record of the key). The lane holds at most `capacity` records: when full,
 * the partition's fetch pauses, and the records beyond are fetched again once half are done;
 * likewise when the process's memory budget has no room, until half its bytes here are done.
 * Its ledger is the events lanes' (PartitionLedger): only the contiguous settled prefix is
 * committed, so a record waiting for its due time holds the ledger, and a restart fetches it again.
 */
export class TierLane implements Lane {
  readonly topic: string;
  readonly partition: number;
  readonly #options: TierLaneOptions;
  readonly #ledger: PartitionLedger;
  /** Not started yet, by due time then offset. */
  #waiting: Waiting[] = [];
  /** With ordering `key`: the latest due time given to a waiting record of each key. */
  readonly #keyDue = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #paused = false;
  /** Paused for the budget while holding this many bytes; null: not paused for the budget. */
  #pausedAtBytes: number | null = null;
  /** Bytes reserved in the budget per offset taken and not ended, and their sum. */
  readonly #bytes = new Map<number, number>();
  #heldBytes = 0;
  #stopped = false;

  constructor(options: TierLaneOptions) {
    this.#options = options;
    this.topic = options.topic;
    this.partition = options.partition;
    this.#ledger = new PartitionLedger({ ...options, ended: (offset) => this.#ended(offset) });
  }

  /**
   * A record of a fetched batch. `taken`: the fetch may move past it (begun, waiting for its due
   * time, or taken before); `full`: the lane holds all it may and the partition's fetch is paused,
   * so the batch ends here; `stopped`: the lane takes nothing more.
   */
  offer(record: ConsumedRecord): 'taken' | 'full' | 'stopped' {
    if (this.#stopped) return 'stopped';
    const offset = Number(record.offset);
    if (offset < this.#ledger.next) return 'taken';
    if (this.#waiting.length + this.#ledger.inFlight >= this.#options.capacity) {
      this.#pause();
      return 'full';
    }
    if (this.#ledger.passSettled(offset)) return 'taken';
    const bytes = recordBytes(record);
    const budget = this.#options.budget;
    if (budget && !budget.tryReserve(bytes, this.#heldBytes)) {
      this.#pausedAtBytes = this.#heldBytes;
      budget.fetchPaused(this);
      this.#pause();
      return 'full';
    }
    this.#bytes.set(offset, bytes);
    this.#heldBytes += bytes;
    this.#ledger.begin(offset, record.timestampMs);
    this.#insert({ record: keptRecord(record), offset, dueAt: this.#dueAt(record) });
    this.#pump();
    return 'taken';
  }

  /** A tier passes nothing over by type: every move of its ledger is committed at once. */
  commitDue(nowMs: number): number | null {
    return this.#ledger.commitDue(nowMs, 0);
  }

  /** Where its fetch starts: the ledger, or past what the consumer before this one settled. */
  get from(): number {
    return this.#ledger.commitTarget();
  }

  settled(): SettledOffsets {
    return this.#ledger.settled();
  }

  committed(offset: number): void {
    this.#ledger.committed(offset);
  }

  rewindAt(offset: number): LedgerRewind | null {
    return this.#ledger.rewindAt(offset);
  }

  oldestUnsettled(): number | null {
    return this.#ledger.oldestUnsettled();
  }

  oldestBegunAt(): number | null {
    return this.#ledger.oldestBegunAt();
  }

  /**
   * Takes and starts nothing more; records not started are dropped (unsettled, so the ledger
   * stays before them), and `abort` ends the waits of those in flight. The partition's fetch is
   * paused: a held lane takes nothing, and a fetch that went on would read the same records again
   * and again; the next assignment seeks and resumes it.
   */
  hold(abort: boolean): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timerAt = Number.POSITIVE_INFINITY;
    for (const { offset } of this.#waiting) this.#release(offset);
    this.#options.budget?.fetchResumed(this);
    this.#waiting = [];
    this.#keyDue.clear();
    if (abort) this.#ledger.abort();
    this.#paused = true;
    this.#options.fetch.pause();
  }

  idle(): Promise<void> {
    return this.#ledger.idle();
  }

  #dueAt(record: ConsumedRecord): number {
    let dueAt = this.#options.dueAtMs(record) ?? 0;
    const key = record.key;
    if (this.#options.ordering === 'key' && key !== null) {
      dueAt = Math.max(dueAt, this.#keyDue.get(key) ?? 0);
      this.#keyDue.set(key, dueAt);
    }
    return dueAt;
  }

  /** Keeps #waiting sorted by due time, then offset (offsets arrive in order, so ties append). */
  #insert(entry: Waiting): void {
    const waiting = this.#waiting;
    let lo = 0;
    let hi = waiting.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((waiting[mid]?.dueAt ?? 0) <= entry.dueAt) lo = mid + 1;
      else hi = mid;
    }
    waiting.splice(lo, 0, entry);
  }

  /** Starts what is due while the window has room; a timer for the next due time otherwise. */
  #pump(): void {
    if (this.#stopped) return;
    const now = Date.now();
    while (this.#ledger.inFlight < this.#options.window) {
      const first = this.#waiting[0];
      if (first === undefined || first.dueAt > now) break;
      this.#waiting.shift();
      this.#start(first);
    }
    const first = this.#waiting[0];
    if (first === undefined || this.#ledger.inFlight >= this.#options.window) return;
    if (first.dueAt >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = first.dueAt;
    // Timers may fire a millisecond early, and one cannot wait past 24.8 days: #pump checks
    // the clock again and sets the next.
    this.#timer = setTimeout(
      () => {
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.min(first.dueAt - now, MAX_TIMER_MS),
    );
  }

  #start({ record, offset }: Waiting): void {
    const key = record.key;
    if (this.#options.ordering === 'key' && key !== null && !this.#waiting.some((w) => w.record.key === key))
      this.#keyDue.delete(key);
    this.#ledger.run(record, offset);
  }

  /**
   * A record ended: the next due one starts, and a fetch paused by a full lane resumes at half
   * (half its records, and half its bytes when the budget paused it).
   */
  #ended(offset: number): void {
    this.#release(offset);
    this.#pump();
    if (
      this.#paused &&
      !this.#stopped &&
      (this.#waiting.length + this.#ledger.inFlight) * 2 <= this.#options.capacity &&
      (this.#pausedAtBytes === null || this.#heldBytes * 2 <= this.#pausedAtBytes)
    ) {
      this.#paused = false;
      this.#pausedAtBytes = null;
      this.#options.budget?.fetchResumed(this);
      this.#options.fetch.resume();
    }
  }

  #release(offset: number): void {
    const bytes = this.#bytes.get(offset);
    if (bytes === undefined) return;
    this.#bytes.delete(offset);
    this.#heldBytes -= bytes;
    this.#options.budget?.release(bytes);
  }

  #pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#options.fetch.pause();
  }
}
