import type { LogFn } from '../../log.ts';
import type { ConsumedRecord } from '../consumed-record.ts';
import { OffsetTracker } from '../ledger/offset-tracker.ts';
import { type SettledOffsets, settledFrom } from '../ledger/settled-offsets.ts';
import type { TapFeed, TapRider } from '../tap/tap-feeds.ts';
import { type HandlerOutcome, type RecordHandler, runInKeyOrder } from './record-handler.ts';

/** What a lane needs of the consumer group member that owns its partition. */
export interface LaneOwner {
  /** Its own fetch reads the partition from `offset`. */
  readOwn(partition: number, offset: number): void;
  /** Its own fetch stops reading the partition: the tap feeds the lane. */
  pauseOwn(partition: number): void;
}

export interface EventsLaneOptions {
  readonly partition: number;
  readonly tap: TapFeed | null;
  readonly owner: LaneOwner;
  readonly handle: RecordHandler;
  readonly ordering: 'none' | 'key';
  /** Records begun and not ended at once; a full window stops taking from the tap. */
  readonly window: number;
  /** Types the subscriber wants; null: all. */
  readonly types: ReadonlySet<string> | null;
  readonly log: LogFn;
}

/** `own`: its group member fetches; `riding`: the tap feeds it; `held`: takes nothing more. */
export type LaneMode = 'own' | 'riding' | 'held';

const TYPE_HEADER = 'ce_type';
/** An own fetch queues at most this many windows of records; the rest of a batch is fetched again. */
const QUEUED_WINDOWS = 8;

/**
 * One subscriber's share of one events-topic partition: the records begun, the ledger rule (only
 * the contiguous settled prefix is committable) and where the records come from: the process's
 * tap while the lane keeps up, its own fetch when it falls behind. Records whose type the
 * subscriber does not want are passed over before anything decodes them.
 */
export class EventsLane implements TapRider {
  readonly partition: number;
  readonly types: ReadonlySet<string> | null;
  readonly #options: EventsLaneOptions;
  readonly #tracker = new OffsetTracker();
  readonly #controller = new AbortController();
  readonly #keyTails = new Map<string, Promise<HandlerOutcome>>();
  /** Offset → Kafka timestamp of records begun and not settled. */
  readonly #held = new Map<number, number>();
  #idleWaiters: (() => void)[] = [];
  #mode: LaneMode = 'held';
  /** The next offset neither begun nor passed over by this lane; -1 while unknown. */
  #next = -1;
  #inFlight = 0;
  /** An own batch is handing records over; only it may move the lane back onto the tap then. */
  #inOwnBatch = false;
  /** Its own fetch is paused until the window has room. */
  #waitingForRoom = false;
  /** Fetched by its own fetch with the window full: taken (the ledger stops before them), not begun. */
  #queued: ConsumedRecord[] = [];
  /** Offsets settled by an earlier lane of the partition, beyond where this one starts. */
  #settledBefore = new Set<number>();
  #settledSinceCommit = false;
  #committed: number | null = null;
  #committedAtMs = Date.now();

  constructor(options: EventsLaneOptions) {
    this.#options = options;
    this.partition = options.partition;
    this.types = options.types;
  }

  get mode(): LaneMode {
    return this.#mode;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Starts at the group's committed offset (`ledger`), or past it and over the offsets the
   * group's previous consumer in this process settled and had not committed (the ledger is
   * committed about once a second). Rides the tap when it has seen that far.
   */
  start(ledger: number, settled: SettledOffsets | null = null): void {
    const from = Math.max(ledger, settled?.before ?? ledger);
    this.#committed = ledger;
    this.#settledSinceCommit = from > ledger;
    this.#settledBefore = new Set(settled?.ahead.filter((o) => o >= from));
    this.#mode = 'own';
    this.#next = from;
    if (!this.#tryRide(from)) this.#options.owner.readOwn(this.partition, from);
  }

  readonly accepts = (type: string): boolean => this.types === null || this.types.has(type);

  /** From the tap: takes the record unless its window is full (it then reads on by itself). */
  offer(record: ConsumedRecord): boolean {
    if (this.#mode !== 'riding') return false;
    const offset = Number(record.offset);
    if (offset < this.#next) return true;
    if (this.#passSettled(offset)) return true;
    if (this.#inFlight >= this.#options.window) {
      this.#goOwn(offset);
      return false;
    }
    this.#begin(record, offset);
    return true;
  }

  released(cursor: number): void {
    if (this.#mode === 'riding') this.#goOwn(Math.max(this.#next, cursor));
  }

  /**
   * A record of its own fetch. 'stop': the batch ends here (the lane rides the tap again, its
   * queue is full, or it stopped); 'next': go on with the next record (begun, queued or passed
   * over). With its window full the lane queues the rest of the batch and pauses its own fetch
   * rather than wait inside the batch, which would hold kafkajs's next fetch of the member's
   * other partitions and retry tiers, or drop the rest, which would fetch and decode it again.
   */
  fromOwnFetch(record: ConsumedRecord): 'next' | 'stop' {
    if (this.#mode !== 'own') return 'stop';
    this.#inOwnBatch = true;
    const offset = Number(record.offset);
    if (offset < this.#next) return 'next';
    if (this.#queued.length === 0 && this.#inFlight * 2 <= this.#options.window && this.#tryRide(offset))
      return 'stop';
    const type = record.headers[TYPE_HEADER];
    if ((type !== undefined && !this.accepts(type)) || this.#passSettled(offset)) {
      this.#next = offset + 1;
      return 'next';
    }
    if (this.#inFlight < this.#options.window && this.#queued.length === 0) {
      this.#take(record, offset);
      this.#launch(record, offset);
      return 'next';
    }
    if (!this.#waitingForRoom) {
      this.#waitingForRoom = true;
      this.#options.owner.pauseOwn(this.partition);
    }
    if (this.#queued.length >= this.#options.window * QUEUED_WINDOWS) return 'stop';
    this.#take(record, offset);
    this.#queued.push(record);
    return 'next';
  }

  /** After an own batch: back onto the tap once caught up, so an idle lane does not fetch. */
  afterOwnBatch(): void {
    this.#inOwnBatch = false;
    this.#rideWhenRoom();
  }

  /**
   * Own fetch, no batch in hand, nothing queued and half the window free: ride if the tap has
   * seen this far, else read on where a full window paused the own fetch.
   */
  #rideWhenRoom(): void {
    if (this.#mode !== 'own' || this.#inOwnBatch || this.#queued.length > 0) return;
    if (this.#inFlight * 2 > this.#options.window) return;
    if (this.#tryRide(this.#next) || !this.#waitingForRoom) return;
    this.#waitingForRoom = false;
    this.#options.owner.readOwn(this.partition, this.#next);
  }

  /**
   * The offset to commit (the next record the group should read) when it moved since the last
   * commit; `quietMs` since then is enough when only passed-over records moved it.
   */
  commitDue(nowMs: number, quietMs: number): number | null {
    const target = this.#commitTarget();
    if (target === null || (this.#committed !== null && target <= this.#committed)) return null;
    if (!this.#settledSinceCommit && nowMs - this.#committedAtMs < quietMs) return null;
    return target;
  }

  /** What this lane settled (or passed over); null: nothing seen. */
  settled(): SettledOffsets | null {
    const before = this.#commitTarget();
    if (before === null) return null;
    return settledFrom(before, [...this.#tracker.settledAhead, ...this.#settledBefore]);
  }

  /** The group committed `offset` (asked for at `atMs`). */
  committed(offset: number, atMs: number): void {
    if (this.#committed === null || offset > this.#committed) this.#committed = offset;
    this.#committedAtMs = atMs;
    this.#settledSinceCommit = false;
  }

  /** Kafka timestamp of the oldest record begun and not settled; null when none. */
  oldestUnsettled(): number | null {
    let oldest: number | null = null;
    for (const ts of this.#held.values()) if (oldest === null || ts < oldest) oldest = ts;
    return oldest;
  }

  /** Takes nothing more; records begun end on their own (`abort`: their waits end now). */
  hold(abort: boolean): void {
    if (this.#mode === 'riding') {
      this.#options.tap?.detach(this.partition, this);
      this.#next = Math.max(this.#next, this.#options.tap?.cursor(this.partition) ?? this.#next);
    }
    if (this.#mode === 'own') this.#options.owner.pauseOwn(this.partition);
    this.#mode = 'held';
    this.#waitingForRoom = false;
    // Never begun: they stay unsettled, below the ledger, for whoever reads the partition next.
    this.#queued = [];
    if (abort) this.#controller.abort();
  }

  /** Settles once nothing begun is still running. */
  async idle(): Promise<void> {
    while (this.#inFlight > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  #commitTarget(): number | null {
    const first = this.#tracker.firstUnsettled;
    if (first !== null) return first;
    if (this.#mode === 'riding') return Math.max(this.#next, this.#options.tap?.cursor(this.partition) ?? 0);
    return this.#next < 0 ? null : this.#next;
  }

  #tryRide(from: number): boolean {
    const tap = this.#options.tap;
    if (tap === null || !tap.covers(this.partition, from)) return false;
    this.#options.owner.pauseOwn(this.partition);
    this.#mode = 'riding';
    this.#waitingForRoom = false;
    this.#next = Math.max(this.#next, from);
    // A full window while the tap offers its recent records already sent the lane back to its
    // own fetch; either way the caller's own batch ends here.
    if (!tap.attach(this.partition, this, from) && this.#mode === 'riding') this.#goOwn(this.#next);
    return true;
  }

  #goOwn(from: number): void {
    this.#mode = 'own';
    this.#waitingForRoom = false;
    this.#next = from;
    this.#options.owner.readOwn(this.partition, from);
  }

  /** An offset an earlier lane settled: counted settled here too, never begun again. */
  #passSettled(offset: number): boolean {
    if (!this.#settledBefore.delete(offset)) return false;
    this.#tracker.begin(offset);
    this.#tracker.settle(offset);
    this.#next = offset + 1;
    return true;
  }

  #begin(record: ConsumedRecord, offset: number): void {
    this.#take(record, offset);
    this.#launch(record, offset);
  }

  /** Counted against the ledger from here: the committed prefix stops before it until it settles. */
  #take(record: ConsumedRecord, offset: number): void {
    this.#tracker.begin(offset);
    this.#next = offset + 1;
    this.#held.set(offset, record.timestampMs);
  }

  #launch(record: ConsumedRecord, offset: number): void {
    this.#inFlight++;
    this.#run(record)
      .then(
        (outcome) => {
          if (outcome !== 'settled') return;
          this.#held.delete(offset);
          this.#tracker.settle(offset);
          this.#settledSinceCommit = true;
        },
        (err: unknown) =>
          this.#options.log('error', 'record handler failed; the record stays unsettled', {
            partition: this.partition,
            offset,
            error: err instanceof Error ? err.message : String(err),
          }),
      )
      .finally(() => {
        this.#inFlight--;
        this.#launchQueued();
        // A lane that caught up gets no more own batches to notice it: its last records ending is when.
        this.#rideWhenRoom();
        if (this.#inFlight === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      });
  }

  /** Queued records start, oldest first, as the window has room. */
  #launchQueued(): void {
    while (this.#mode !== 'held' && this.#inFlight < this.#options.window) {
      const next = this.#queued.shift();
      if (next === undefined) return;
      this.#launch(next, Number(next.offset));
    }
  }

  #run(record: ConsumedRecord): Promise<HandlerOutcome> {
    const { handle, ordering } = this.#options;
    return runInKeyOrder(handle, ordering, record, this.#controller.signal, this.#keyTails);
  }
}
