import type { LogFn } from '../../log.ts';
import type { ConsumedRecord } from '../consumed-record.ts';
import { OffsetTracker } from '../ledger/offset-tracker.ts';
import { type SettledOffsets, settledFrom } from '../ledger/settled-offsets.ts';
import { type HandlerOutcome, type RecordHandler, runInKeyOrder } from './record-handler.ts';

/** The longest a Node timer can wait (2^31 - 1 ms, 24.8 days); past it a timer fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** What a tier lane needs of the group member that fetches its partition. */
export interface TierFetch {
  /** Fetch nothing more of the partition: the lane holds as many records as it may. */
  pause(): void;
  resume(): void;
}

export interface TierLaneOptions {
  readonly topic: string;
  readonly partition: number;
  /** When a record may be handed over (ms since epoch), or null for at once. */
  readonly dueAtMs: (record: ConsumedRecord) => number | null;
  readonly handle: RecordHandler;
  readonly ordering: 'none' | 'key';
  /** Records in flight at once. */
  readonly window: number;
  /** Records taken and not ended (in flight or waiting for their due time) at most. */
  readonly capacity: number;
  readonly fetch: TierFetch;
  readonly log: LogFn;
  /** The group's committed offset for the partition (its earliest where it has none). */
  readonly ledger: number;
  /** What the group's previous consumer in this process settled of the partition. */
  readonly settled?: SettledOffsets | null;
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
 * the partition's fetch pauses, and the records beyond are fetched again once half are done.
 * The ledger rule is the events lanes': only the contiguous settled prefix is committed, so a
 * record waiting for its due time holds the ledger, and a restart fetches it again.
 */
export class TierLane {
  readonly topic: string;
  readonly partition: number;
  readonly #options: TierLaneOptions;
  readonly #tracker = new OffsetTracker();
  readonly #controller = new AbortController();
  readonly #keyTails = new Map<string, Promise<HandlerOutcome>>();
  /** Offset → Kafka timestamp of records taken and not settled. */
  readonly #held = new Map<number, number>();
  /** Not started yet, by due time then offset. */
  #waiting: Waiting[] = [];
  /** With ordering `key`: the latest due time given to a waiting record of each key. */
  readonly #keyDue = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #idleWaiters: (() => void)[] = [];
  /** The next offset not taken. */
  #next: number;
  #inFlight = 0;
  #paused = false;
  #stopped = false;
  #committed: number;
  /** Offsets the consumer before this one settled, beyond where this lane starts. */
  #settledBefore: Set<number>;

  constructor(options: TierLaneOptions) {
    this.#options = options;
    this.topic = options.topic;
    this.partition = options.partition;
    this.#committed = options.ledger;
    this.#next = Math.max(options.ledger, options.settled?.before ?? options.ledger);
    this.#settledBefore = new Set(options.settled?.ahead.filter((o) => o >= this.#next));
  }

  /**
   * A record of a fetched batch. `taken`: the fetch may move past it (begun, waiting for its due
   * time, or taken before); `full`: the lane holds all it may and the partition's fetch is paused,
   * so the batch ends here; `stopped`: the lane takes nothing more.
   */
  offer(record: ConsumedRecord): 'taken' | 'full' | 'stopped' {
    if (this.#stopped) return 'stopped';
    const offset = Number(record.offset);
    if (offset < this.#next) return 'taken';
    if (this.#waiting.length + this.#inFlight >= this.#options.capacity) {
      this.#pause();
      return 'full';
    }
    this.#tracker.begin(offset);
    this.#next = offset + 1;
    if (this.#settledBefore.delete(offset)) {
      this.#tracker.settle(offset);
      return 'taken';
    }
    this.#held.set(offset, record.timestampMs);
    this.#insert({ record, offset, dueAt: this.#dueAt(record) });
    this.#pump();
    return 'taken';
  }

  /** The offset the group should read next when it moved since the last commit, else null. */
  commitDue(): number | null {
    const target = this.#prefix();
    return target === this.#committed ? null : target;
  }

  /** Where its fetch starts: the ledger, or past what the consumer before this one settled. */
  get from(): number {
    return this.#tracker.firstUnsettled ?? this.#next;
  }

  /** What this lane settled. */
  settled(): SettledOffsets {
    const before = this.#prefix();
    return settledFrom(before, [...this.#tracker.settledAhead, ...this.#settledBefore]);
  }

  #prefix(): number {
    return this.#tracker.firstUnsettled ?? this.#next;
  }

  committed(offset: number): void {
    this.#committed = offset;
  }

  /** Kafka timestamp of the oldest record taken and not settled; null when none. */
  oldestUnsettled(): number | null {
    let oldest: number | null = null;
    for (const ts of this.#held.values()) if (oldest === null || ts < oldest) oldest = ts;
    return oldest;
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
    this.#waiting = [];
    this.#keyDue.clear();
    if (abort) this.#controller.abort();
    this.#paused = true;
    this.#options.fetch.pause();
  }

  /** Settles once nothing started is still running. */
  async idle(): Promise<void> {
    while (this.#inFlight > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
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
    while (this.#inFlight < this.#options.window) {
      const first = this.#waiting[0];
      if (first === undefined || first.dueAt > now) break;
      this.#waiting.shift();
      this.#start(first);
    }
    const first = this.#waiting[0];
    if (first === undefined || this.#inFlight >= this.#options.window) return;
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
    this.#inFlight++;
    const key = record.key;
    if (this.#options.ordering === 'key' && key !== null && !this.#waiting.some((w) => w.record.key === key))
      this.#keyDue.delete(key);
    runInKeyOrder(
      this.#options.handle,
      this.#options.ordering,
      record,
      this.#controller.signal,
      this.#keyTails,
    )
      .then(
        (outcome) => {
          if (outcome !== 'settled') return;
          this.#held.delete(offset);
          this.#tracker.settle(offset);
        },
        (err: unknown) =>
          this.#options.log('error', 'record handler failed; the record stays unsettled', {
            topic: this.topic,
            partition: this.partition,
            offset,
            error: err instanceof Error ? err.message : String(err),
          }),
      )
      .finally(() => this.#ended());
  }

  #ended(): void {
    this.#inFlight--;
    this.#pump();
    if (
      this.#paused &&
      !this.#stopped &&
      (this.#waiting.length + this.#inFlight) * 2 <= this.#options.capacity
    ) {
      this.#paused = false;
      this.#options.fetch.resume();
    }
    if (this.#inFlight === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  #pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#options.fetch.pause();
  }
}
