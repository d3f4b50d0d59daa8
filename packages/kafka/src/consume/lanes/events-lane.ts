import { CE_HEADER } from '@hookstream/contracts';
import { type ConsumedRecord, keptRecord } from '../consumed-record.ts';
import { type LaneLedgerOptions, PartitionLedger } from '../ledger/partition-ledger.ts';
import type { SettledOffsets } from '../ledger/settled-offsets.ts';
import { type MemoryBudget, recordBytes } from '../memory-budget.ts';
import type { TapFeed, TapRider } from '../tap/tap-feeds.ts';
import type { Lane } from './lane.ts';

/** What a lane needs of the consumer group member that owns its partition. */
export interface LaneOwner {
  /** Its own fetch reads the partition from `offset`. */
  readOwn(partition: number, offset: number): void;
  /** Its own fetch stops reading the partition: the tap feeds the lane. */
  pauseOwn(partition: number): void;
}

export interface EventsLaneOptions extends LaneLedgerOptions {
  readonly tap: TapFeed | null;
  readonly owner: LaneOwner;
  /** Records begun and not ended at once; a full window stops taking from the tap. */
  readonly window: number;
  /** Types the subscriber wants; null: all. */
  readonly types: ReadonlySet<string> | null;
  /** The subscriber's tenant: only records whose `ce_tenant` is this one; null: every record. */
  readonly tenant: string | null;
  /** The process's budget: records queued behind the window are charged to it. */
  readonly budget?: MemoryBudget | null;
}

/** `own`: its group member fetches; `riding`: the tap feeds it; `held`: takes nothing more. */
export type LaneMode = 'own' | 'riding' | 'held';

/** An own fetch queues at most this many windows of records; the rest of a batch is fetched again. */
const QUEUED_WINDOWS = 8;

/**
 * One subscriber's share of one events-topic partition: where its records come from (the
 * process's tap while the lane keeps up, its own fetch when it falls behind) and how many may
 * run; its ledger keeps the rest. Records whose type or tenant the subscriber does not want are
 * passed over before anything decodes them.
 */
export class EventsLane implements TapRider, Lane {
  readonly topic: string;
  readonly partition: number;
  readonly types: ReadonlySet<string> | null;
  readonly tenant: string | null;
  readonly #options: EventsLaneOptions;
  readonly #ledger: PartitionLedger;
  #mode: LaneMode = 'held';
  /** An own batch is handing records over; only it may move the lane back onto the tap then. */
  #inOwnBatch = false;
  /** Its own fetch is paused until the window has room. */
  #waitingForRoom = false;
  /** Fetched by its own fetch with the window full: taken (the ledger stops before them), not begun. */
  #queued: ConsumedRecord[] = [];
  /** Reserved in the budget for `#queued`. */
  #queuedBytes = 0;

  constructor(options: EventsLaneOptions) {
    this.#options = options;
    this.topic = options.topic;
    this.partition = options.partition;
    this.types = options.types;
    this.tenant = options.tenant;
    this.#ledger = new PartitionLedger({
      ...options,
      ended: () => {
        this.#launchQueued();
        // A lane that caught up gets no more own batches to notice it: its last records ending is when.
        this.#rideWhenRoom();
      },
    });
  }

  get mode(): LaneMode {
    return this.#mode;
  }

  get inFlight(): number {
    return this.#ledger.inFlight;
  }

  /**
   * Starts at the group's committed offset, or past it and over the offsets the group's previous
   * consumer in this process settled and had not committed. Rides the tap when it has seen that far.
   */
  start(): void {
    const from = this.#ledger.next;
    this.#mode = 'own';
    if (!this.#tryRide(from)) this.#options.owner.readOwn(this.partition, from);
  }

  readonly accepts = (type: string): boolean => this.types === null || this.types.has(type);

  /** From the tap: takes the record unless its window is full (it then reads on by itself). */
  offer(record: ConsumedRecord): boolean {
    if (this.#mode !== 'riding') return false;
    const offset = Number(record.offset);
    if (offset < this.#ledger.next) return true;
    if (this.#ledger.passSettled(offset)) return true;
    if (this.#ledger.inFlight >= this.#options.window) {
      this.#goOwn(offset);
      return false;
    }
    this.#ledger.begin(offset, record.timestampMs);
    this.#ledger.run(record, offset);
    return true;
  }

  released(cursor: number): void {
    if (this.#mode === 'riding') this.#goOwn(cursor);
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
    const ledger = this.#ledger;
    const offset = Number(record.offset);
    if (offset < ledger.next) return 'next';
    if (this.#queued.length === 0 && ledger.inFlight * 2 <= this.#options.window && this.#tryRide(offset))
      return 'stop';
    const type = record.headers[CE_HEADER.type];
    const otherTenant = this.tenant !== null && record.headers[CE_HEADER.tenant] !== this.tenant;
    if (otherTenant || (type !== undefined && !this.accepts(type)) || ledger.passSettled(offset)) {
      ledger.skipTo(offset + 1);
      return 'next';
    }
    if (ledger.inFlight < this.#options.window && this.#queued.length === 0) {
      ledger.begin(offset, record.timestampMs);
      ledger.run(record, offset);
      return 'next';
    }
    if (!this.#waitingForRoom) {
      this.#waitingForRoom = true;
      this.#options.owner.pauseOwn(this.partition);
    }
    if (this.#queued.length >= this.#options.window * QUEUED_WINDOWS) return 'stop';
    // Over the budget the batch ends here too: the rest is fetched again once the queue drains.
    const bytes = recordBytes(record);
    const budget = this.#options.budget;
    if (budget && !budget.tryReserve(bytes, this.#queuedBytes)) {
      budget.fetchPaused(this);
      return 'stop';
    }
    this.#queuedBytes += bytes;
    ledger.begin(offset, record.timestampMs);
    this.#queued.push(keptRecord(record));
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
    if (this.#ledger.inFlight * 2 > this.#options.window) return;
    if (this.#tryRide(this.#ledger.next) || !this.#waitingForRoom) return;
    this.#waitingForRoom = false;
    this.#options.budget?.fetchResumed(this);
    this.#options.owner.readOwn(this.partition, this.#ledger.next);
  }

  commitDue(nowMs: number, quietMs: number): number | null {
    return this.#ledger.commitDue(nowMs, quietMs, this.#seen());
  }

  settled(): SettledOffsets {
    return this.#ledger.settled(this.#seen());
  }

  committed(offset: number, atMs: number): void {
    this.#ledger.committed(offset, atMs);
  }

  oldestUnsettled(): number | null {
    return this.#ledger.oldestUnsettled();
  }

  oldestBegunAt(): number | null {
    return this.#ledger.oldestBegunAt();
  }

  hold(abort: boolean): void {
    if (this.#mode === 'riding') {
      this.#options.tap?.detach(this.partition, this);
      this.#ledger.skipTo(this.#options.tap?.cursor(this.partition) ?? 0);
    }
    if (this.#mode === 'own') this.#options.owner.pauseOwn(this.partition);
    this.#mode = 'held';
    this.#waitingForRoom = false;
    // Never begun: they stay unsettled, below the ledger, for whoever reads the partition next.
    this.#queued = [];
    this.#releaseQueued(this.#queuedBytes);
    this.#options.budget?.fetchResumed(this);
    if (abort) this.#ledger.abort();
  }

  idle(): Promise<void> {
    return this.#ledger.idle();
  }

  /** Riding, everything below the tap's cursor was offered to it: passed over unless taken. */
  #seen(): number | undefined {
    return this.#mode === 'riding' ? (this.#options.tap?.cursor(this.partition) ?? 0) : undefined;
  }

  #tryRide(from: number): boolean {
    const tap = this.#options.tap;
    if (tap === null || !tap.covers(this.partition, from, this.types)) return false;
    this.#options.owner.pauseOwn(this.partition);
    this.#mode = 'riding';
    this.#waitingForRoom = false;
    this.#options.budget?.fetchResumed(this);
    this.#ledger.skipTo(from);
    // A full window while the tap offers its recent records already sent the lane back to its
    // own fetch; either way the caller's own batch ends here.
    if (!tap.attach(this.partition, this, from) && this.#mode === 'riding') this.#goOwn(this.#ledger.next);
    return true;
  }

  #goOwn(from: number): void {
    this.#mode = 'own';
    this.#waitingForRoom = false;
    this.#options.budget?.fetchResumed(this);
    this.#ledger.skipTo(from);
    this.#options.owner.readOwn(this.partition, this.#ledger.next);
  }

  /**
   * Queued records start, oldest first, as the window has room; they leave the budget then (in
   * flight, records are bounded by the window).
   */
  #launchQueued(): void {
    while (this.#mode !== 'held' && this.#ledger.inFlight < this.#options.window) {
      const next = this.#queued.shift();
      if (next === undefined) return;
      this.#releaseQueued(recordBytes(next));
      this.#ledger.run(next, Number(next.offset));
    }
  }

  #releaseQueued(bytes: number): void {
    this.#queuedBytes -= bytes;
    this.#options.budget?.release(bytes);
  }
}
