import { Fifo } from '@hookstream/concurrency';
import { type EventSelection, eventTenantOf } from '@hookstream/contracts';
import { type ConsumedRecord, keptRecord, type LedgerRewind } from '@hookstream/kafka';
import { type LaneLedgerOptions, PartitionLedger } from '../ledger/partition-ledger.ts';
import type { SettledOffsets } from '../ledger/settled-offsets.ts';
import { type MemoryBudget, recordBytes } from '../memory-budget.ts';
import type { CatchUpFeed, CatchUpRider } from '../tap/catch-up-feeds.ts';
import type { TapFeed, TapRider } from '../tap/tap-feeds.ts';
import type { Lane } from './lane.ts';
import type { RecordQueue } from './record-queue.ts';
import { TenantFairQueue } from './tenant-fair-queue.ts';
import { TenantWindows } from './tenant-windows.ts';

/** What a lane needs of the consumer group member that owns its partition. */
export interface LaneOwner {
  /** Its own fetch reads the partition from `offset`. */
  readOwn(partition: number, offset: number): void;
  /** Its own fetch stops reading the partition: the tap feeds the lane. */
  pauseOwn(partition: number): void;
}

export interface EventsLaneOptions extends LaneLedgerOptions {
  readonly tap: TapFeed | null;
  /** The process's one read for lanes behind the tap; absent or null: its member reads for it. */
  readonly catchUp?: CatchUpFeed | null;
  readonly owner: LaneOwner;
  /** Records begun and not ended at once; a full window stops taking from the tap. */
  readonly window: number;
  /** The records the subscriber takes, by type and tenant; others are passed over undecoded. */
  readonly selection: EventSelection;
  /** The process's budget: records queued behind the window are charged to it. */
  readonly budget?: MemoryBudget | null;
  /**
   * `tenant`: the window is each tenant's (up to FAIR_WINDOWS of them in all), queued records
   * start a tenant at a time, in turn, and the lane reads on while they wait (up to
   * FAIR_QUEUED_RECORDS and the budget), so a tenant that publishes behind another's burst is
   * seen and started at once. Absent or null: one window, oldest first, one batch read ahead.
   */
  readonly fairness?: 'tenant' | null;
}

/**
 * `own`: its group member fetches; `catching-up`: the process's catch-up reader reads for it;
 * `riding`: the tap feeds it; `held`: takes nothing more.
 */
export type LaneMode = 'own' | 'catching-up' | 'riding' | 'held';

/** An own fetch queues at most this many windows of records; the rest of a batch is fetched again. */
const QUEUED_WINDOWS = 8;
/**
 * A fair lane reads ahead at most this many records (the budget bounds their bytes): enough for
 * a burst of one tenant not to hide the records of the next from the turns.
 */
const FAIR_QUEUED_RECORDS = 20_000;
/** A fair lane runs at most this many windows of records at once, whatever the tenants. */
const FAIR_WINDOWS = 4;
/**
 * A fair lane's read-ahead holds at most this share of the process's budget, so one fair
 * subscriber's backlog cannot take the room every other lane (and the tap's cache) needs.
 */
const FAIR_BUDGET_SHARE = 0.25;

/**
 * One subscriber's share of one events-topic partition: where its records come from (the
 * process's tap while the lane keeps up, its own fetch when it falls behind) and how many may
 * run; its ledger keeps the rest. Records whose type or tenant the subscriber does not want are
 * passed over before anything decodes them.
 */
export class EventsLane implements TapRider, CatchUpRider, Lane {
  readonly topic: string;
  readonly partition: number;
  readonly selection: EventSelection;
  readonly #options: EventsLaneOptions;
  readonly #ledger: PartitionLedger;
  #mode: 'own' | 'riding' | 'held' = 'held';
  /** In `own` mode: the catch-up reader reads for it, not its member. */
  #readByCatchUp = false;
  /** An own batch is handing records over; only it may move the lane back onto the tap then. */
  #inOwnBatch = false;
  /** Its own fetch is paused until the window has room. */
  #waitingForRoom = false;
  /** Fetched by its own fetch with the window full: taken (the ledger stops before them), not run. */
  readonly #queued: RecordQueue;
  /** At most this many records are queued. */
  readonly #queueCap: number;
  /** A fair lane whose queue stopped its fetch reads on once the queue is down to this. */
  #readOnBelow = 0;
  /** A fair lane's records running, by tenant; null: one window for all. */
  readonly #windows: TenantWindows | null;
  /** Records running at most. */
  readonly #maxInFlight: number;
  /** Reserved in the budget for `#queued`. */
  #queuedBytes = 0;

  constructor(options: EventsLaneOptions) {
    this.#options = options;
    this.topic = options.topic;
    this.partition = options.partition;
    this.selection = options.selection;
    const fair = options.fairness === 'tenant';
    this.#queued = fair ? new TenantFairQueue(options.ordering) : new Fifo<ConsumedRecord>();
    this.#queueCap = fair ? FAIR_QUEUED_RECORDS : options.window * QUEUED_WINDOWS;
    this.#windows = fair ? new TenantWindows(options.window) : null;
    this.#maxInFlight = fair ? options.window * FAIR_WINDOWS : options.window;
    this.#ledger = new PartitionLedger({
      ...options,
      ended: (offset) => {
        this.#windows?.ended(offset);
        this.#launchQueued();
        // A lane that caught up gets no more own batches to notice it: its last records ending is when.
        this.#rideWhenRoom();
      },
    });
  }

  get mode(): LaneMode {
    return this.#mode === 'own' && this.#readByCatchUp ? 'catching-up' : this.#mode;
  }

  get inFlight(): number {
    return this.#ledger.inFlight;
  }

  /**
   * Starts at the group's committed offset, or past it and over the offsets settled already (see
   * PartitionLedgerOptions.settled). Rides the tap when it has seen that far.
   */
  start(): void {
    const from = this.#ledger.next;
    this.#mode = 'own';
    if (!this.#tryRide(from)) this.#readOwn(from);
  }

  /**
   * From the tap: takes the record, queued behind a full window while the queue has room. Only
   * a full queue sends the lane to its own fetch: deliveries slowed for a moment (a rebalance,
   * slow answers) used to, and a lane's own fetch reads every type of the topic, so on a busy
   * topic shared by many subscribers it could not catch up with the tap again.
   */
  offer(record: ConsumedRecord): boolean {
    if (this.#mode !== 'riding') return false;
    const offset = Number(record.offset);
    if (offset < this.#ledger.next) return true;
    if (this.#ledger.passSettled(offset)) return true;
    if (this.#queued.length === 0 && this.#mayStart(record)) {
      this.#ledger.begin(offset, record.timestampMs);
      this.#start(record, offset);
      return true;
    }
    if (this.#enqueue(record, offset) === 'queued') return true;
    this.#goOwn(offset);
    return false;
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
    if (!this.selection.takes(record.headers) || ledger.passSettled(offset)) {
      ledger.skipTo(offset + 1);
      return 'next';
    }
    if (this.#queued.length === 0 && this.#mayStart(record)) {
      ledger.begin(offset, record.timestampMs);
      this.#start(record, offset);
      return 'next';
    }
    // A fair lane reads on while its queue has room; otherwise the batch in hand is the last.
    if (!this.#fair) this.#pauseForRoom();
    const queued = this.#enqueue(record, offset);
    if (queued === 'queued') return 'next';
    // Full, or over the budget: the rest is fetched again once the queue drains.
    this.#pauseForRoom();
    if (queued === 'over budget') this.#options.budget?.fetchPaused(this);
    return 'stop';
  }

  /** Begins a record behind the full window, its bytes reserved in the budget, unless there is no room. */
  #enqueue(record: ConsumedRecord, offset: number): 'queued' | 'full' | 'over budget' {
    if (this.#queued.length >= this.#queueCap) return 'full';
    const bytes = recordBytes(record);
    const budget = this.#options.budget;
    if (
      this.#fair &&
      budget &&
      this.#queuedBytes + bytes > budget.limit * FAIR_BUDGET_SHARE &&
      this.#queued.length > 0
    )
      return 'full';
    if (budget && !budget.tryReserve(bytes, this.#queuedBytes)) return 'over budget';
    this.#queuedBytes += bytes;
    this.#ledger.begin(offset, record.timestampMs);
    this.#queued.push(keptRecord(record));
    // Another tenant's window may have room: the queue says whose turn it is.
    if (this.#fair) this.#launchQueued();
    return 'queued';
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
    if (this.#mode !== 'own' || this.#inOwnBatch) return;
    if (this.#queued.length > 0) {
      if (this.#fair && this.#waitingForRoom && this.#queued.length <= this.#readOnBelow) this.#readOn();
      return;
    }
    if (this.#ledger.inFlight * 2 > this.#options.window) return;
    if (this.#tryRide(this.#ledger.next) || !this.#waitingForRoom) return;
    this.#readOn();
  }

  get #fair(): boolean {
    return this.#options.fairness === 'tenant';
  }

  /**
   * Its own fetch pauses until the queue drains: a fair lane's reads on once a quarter of what it
   * holds now has started, so a tenant publishing behind a burst longer than the read-ahead waits
   * for that quarter, not for half of it.
   */
  #pauseForRoom(): void {
    if (this.#waitingForRoom) return;
    this.#waitingForRoom = true;
    this.#readOnBelow = Math.floor((this.#queued.length * 3) / 4);
    this.#pauseOwn();
  }

  /** Its own fetch goes on from the first record neither begun nor passed over. */
  #readOn(): void {
    this.#waitingForRoom = false;
    this.#options.budget?.fetchResumed(this);
    this.#readOwn(this.#ledger.next);
  }

  /** Reads from `offset` through the catch-up reader, or its member's fetch when it will not. */
  #readOwn(offset: number): void {
    const { catchUp, owner } = this.#options;
    this.#readByCatchUp = catchUp?.read(this, offset, (at) => this.#catchUpLetGo(at)) ?? false;
    if (this.#readByCatchUp) owner.pauseOwn(this.partition);
    else owner.readOwn(this.partition, offset);
  }

  #pauseOwn(): void {
    if (this.#readByCatchUp) this.#options.catchUp?.stop(this);
    this.#readByCatchUp = false;
    this.#options.owner.pauseOwn(this.partition);
  }

  /** The catch-up reader stopped reading for it: its member reads on from `offset`. */
  #catchUpLetGo(offset: number): void {
    if (this.#mode !== 'own' || !this.#readByCatchUp) return;
    this.#readByCatchUp = false;
    this.#options.owner.readOwn(this.partition, offset);
  }

  commitDue(nowMs: number, quietMs: number): number | null {
    return this.#ledger.commitDue(nowMs, quietMs, this.#seen());
  }

  settled(): SettledOffsets {
    return this.#ledger.settled(this.#seen());
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

  hold(abort: boolean): void {
    if (this.#mode === 'riding') {
      this.#options.tap?.detach(this.partition, this);
      this.#ledger.skipTo(this.#options.tap?.cursor(this.partition) ?? 0);
    }
    if (this.#mode === 'own') this.#pauseOwn();
    this.#mode = 'held';
    this.#waitingForRoom = false;
    // Never begun: they stay unsettled, below the ledger, for whoever reads the partition next.
    this.#queued.clear();
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
    if (tap === null || !tap.covers(this.partition, from, this.selection.types)) return false;
    this.#pauseOwn();
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
    this.#readOwn(this.#ledger.next);
  }

  /**
   * Queued records start, in the queue's order, as the window has room; they leave the budget
   * then (in flight, records are bounded by the window).
   */
  #launchQueued(): void {
    const windows = this.#windows;
    const mayStart = windows ? (tenant: string) => windows.hasRoom(tenant) : undefined;
    while (this.#mode !== 'held' && this.#ledger.inFlight < this.#maxInFlight) {
      const next = this.#queued.take(mayStart);
      if (next === undefined) return;
      this.#releaseQueued(recordBytes(next));
      this.#start(next, Number(next.offset));
    }
  }

  /** Room for the record now: in the window, and for a fair lane in its tenant's. */
  #mayStart(record: ConsumedRecord): boolean {
    if (this.#ledger.inFlight >= this.#maxInFlight) return false;
    return this.#windows?.hasRoom(tenantOfRecord(record)) ?? true;
  }

  /** Runs a begun record, counted in its tenant's window in a fair lane. */
  #start(record: ConsumedRecord, offset: number): void {
    this.#windows?.started(offset, tenantOfRecord(record));
    this.#ledger.run(record, offset);
  }

  #releaseQueued(bytes: number): void {
    this.#queuedBytes -= bytes;
    this.#options.budget?.release(bytes);
  }
}

/** The tenant a fair lane counts a record under: its `ce_tenant`, or '' for records without one. */
function tenantOfRecord(record: ConsumedRecord): string {
  return eventTenantOf(record.headers) ?? '';
}
