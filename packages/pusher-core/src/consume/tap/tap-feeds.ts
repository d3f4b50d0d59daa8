import { type EventSelection, eventTenantOf, eventTypeOf } from '@hookstream/contracts';
import { type ConsumedRecord, keptRecord } from '@hookstream/kafka';
import { type MemoryBudget, type MemoryCache, recordBytes } from '../memory-budget.ts';

/** Where a tap's records go: one subscriber's lane on one partition. */
export interface TapRider {
  /**
   * The records it takes (its types and tenant, indexed here): records of other types, and of
   * other tenants or without one for a tenant's rider, never reach it.
   */
  readonly selection: EventSelection;
  /**
   * Takes a record in offset order. False: it cannot take more now; the tap forgets it, and it
   * reads on by itself from this record's offset.
   */
  offer(record: ConsumedRecord): boolean;
  /**
   * The tap let it go without a record (a gap in what it saw, or it stopped): it reads on by
   * itself; everything below `cursor` was offered to it already.
   */
  released(cursor: number): void;
}

/** What a lane sees of the tap (EventsTap; a fake in tests). */
export interface TapFeed {
  attach(partition: number, rider: TapRider, from: number): boolean;
  detach(partition: number, rider: TapRider): void;
  /** Whether a rider of `types` (null: every type) attached at `offset` would miss nothing. */
  covers(partition: number, offset: number, types: ReadonlySet<string> | null): boolean;
  cursor(partition: number): number | null;
}

/** Riders by the types they take: those of some types, and those of every type. */
interface RiderIndex {
  byType: Map<string, Set<TapRider>>;
  anyType: Set<TapRider>;
}

interface PartitionFeed {
  /** The next offset the tap hands out; everything from `base` below it was seen. */
  cursor: number;
  base: number;
  /** Kept records of the types the process's subscribers take, values copied. */
  recent: ConsumedRecord[];
  /** Per type wanted: every record of it from this offset on was kept (while it stays wanted). */
  keptFrom: Map<string, number>;
  /** While some subscriber takes every type: every record from this offset on was kept. */
  allFrom: number | null;
  /** Reserved in the budget for `recent`. */
  bytes: number;
  /** Riders without a tenant: every record of their types reaches them. */
  open: RiderIndex;
  /** Riders of one tenant, by tenant: only records of that tenant reach them. */
  byTenant: Map<string, RiderIndex>;
}

/**
 * The tap's bookkeeping without Kafka: per partition, the next offset to hand out, the recent
 * records (so a lane a little behind can join without a fetch of its own) and the riders indexed
 * by tenant and event type, so a record costs only the subscribers that want it: a few map
 * look-ups whatever the number of riders, then one offer per rider of its tenant and type. Recent records are kept
 * only of the types some subscriber of the process takes (`want`), their bytes in the process's
 * memory budget: they are a cache, evicted oldest first when something else needs the room.
 */
export class TapFeeds implements TapFeed, MemoryCache {
  readonly #feeds = new Map<number, PartitionFeed>();
  readonly #recentMax: number;
  readonly #budget: MemoryBudget | null;
  /** Subscribers of the process taking each type, and those taking every type. */
  readonly #wanted = new Map<string, number>();
  #wantAll = 0;
  #dead = false;

  constructor(recentMax: number, budget: MemoryBudget | null = null) {
    this.#recentMax = recentMax;
    this.#budget = budget;
    budget?.addCache(this);
  }

  /** The tap reads the partition from `end` on. */
  open(partition: number, end: number): void {
    this.#feeds.set(partition, {
      cursor: end,
      base: end,
      recent: [],
      keptFrom: new Map([...this.#wanted.keys()].map((type) => [type, end])),
      allFrom: this.#wantAll > 0 ? end : null,
      bytes: 0,
      open: newIndex(),
      byTenant: new Map(),
    });
  }

  /**
   * A subscriber of the process takes `types` (null: every type) until the returned function is
   * called. A type wanted anew was not kept so far, so its riders may join only from each
   * partition's cursor now on; the other types' recent records stay (forgetting them at every
   * start left a fleet that starts hundreds of subscribers with nothing to ride from).
   */
  want(types: ReadonlySet<string> | null): () => void {
    if (types === null) {
      if (this.#wantAll++ === 0) for (const feed of this.#feeds.values()) feed.allFrom = feed.cursor;
    } else
      for (const type of types) {
        const count = this.#wanted.get(type) ?? 0;
        this.#wanted.set(type, count + 1);
        if (count === 0) for (const feed of this.#feeds.values()) feed.keptFrom.set(type, feed.cursor);
      }
    let wanted = true;
    return () => {
      if (!wanted) return;
      wanted = false;
      if (types === null) {
        if (--this.#wantAll === 0) for (const feed of this.#feeds.values()) feed.allFrom = null;
      } else
        for (const type of types) {
          const count = (this.#wanted.get(type) ?? 1) - 1;
          if (count > 0) {
            this.#wanted.set(type, count);
            continue;
          }
          this.#wanted.delete(type);
          for (const feed of this.#feeds.values()) feed.keptFrom.delete(type);
        }
    };
  }

  /** Lets go of the oldest recent records, across partitions, until `bytes` are freed. */
  evict(bytes: number): number {
    let freed = 0;
    for (const feed of this.#feeds.values()) {
      let drop = 0;
      let dropped = 0;
      while (freed + dropped < bytes && drop < feed.recent.length)
        dropped += recordBytes(feed.recent[drop++] as ConsumedRecord);
      if (drop > 0) this.#trim(feed, drop);
      freed += dropped;
      if (freed >= bytes) break;
    }
    return freed;
  }

  /**
   * Records of one fetch, in offset order. `fetchedFrom`: the offset the fetch asked for; past
   * the cursor, Kafka skipped records the tap never saw (control records, a moved position), so
   * every rider reads on by itself from there.
   */
  receive(partition: number, fetchedFrom: number, records: readonly ConsumedRecord[]): void {
    const feed = this.#feeds.get(partition);
    if (feed === undefined || this.#dead) return;
    if (fetchedFrom > feed.cursor) {
      this.#releaseAll(partition, feed);
      feed.cursor = fetchedFrom;
      this.#forget(feed, fetchedFrom);
    }
    for (const record of records) {
      const offset = Number(record.offset);
      if (offset < feed.cursor) continue;
      feed.cursor = offset + 1;
      this.#dispatch(partition, feed, this.#keep(feed, record, offset));
    }
  }

  attach(partition: number, rider: TapRider, from: number): boolean {
    const feed = this.#feeds.get(partition);
    const { types, tenant } = rider.selection;
    if (this.#dead || feed === undefined || from < keptSince(feed, types)) return false;
    // A copy: a rider that queues what it takes reserves it in the budget, which may evict the
    // oldest recent records while they are handed out; trimming the array under its iterator
    // skipped every other record, and the rider passed them over as seen.
    for (const record of feed.recent.slice(firstFrom(feed.recent, from)))
      if (rider.selection.takes(record.headers) && !rider.offer(record)) return false;
    let index = feed.open;
    if (tenant !== null) {
      index = feed.byTenant.get(tenant) ?? newIndex();
      feed.byTenant.set(tenant, index);
    }
    if (types === null) index.anyType.add(rider);
    else
      for (const type of types) {
        let riders = index.byType.get(type);
        if (!riders) {
          riders = new Set();
          index.byType.set(type, riders);
        }
        riders.add(rider);
      }
    return true;
  }

  detach(partition: number, rider: TapRider): void {
    const feed = this.#feeds.get(partition);
    if (!feed) return;
    const { types, tenant } = rider.selection;
    const index = tenant === null ? feed.open : feed.byTenant.get(tenant);
    if (index === undefined) return;
    index.anyType.delete(rider);
    if (types !== null)
      for (const type of types) {
        const riders = index.byType.get(type);
        riders?.delete(rider);
        if (riders?.size === 0) index.byType.delete(type);
      }
    // Tenants come and go with their subscribers: an index nobody rides is dropped.
    if (tenant !== null && index.anyType.size === 0 && index.byType.size === 0) feed.byTenant.delete(tenant);
  }

  covers(partition: number, offset: number, types: ReadonlySet<string> | null): boolean {
    const feed = this.#feeds.get(partition);
    return !this.#dead && feed !== undefined && offset >= keptSince(feed, types);
  }

  cursor(partition: number): number | null {
    return this.#dead ? null : (this.#feeds.get(partition)?.cursor ?? null);
  }

  /** The tap stopped: every rider reads on by itself, and nobody rides again. */
  kill(): void {
    if (this.#dead) return;
    this.#dead = true;
    for (const [partition, feed] of this.#feeds) {
      this.#releaseAll(partition, feed);
      this.#forget(feed, feed.cursor);
    }
    this.#budget?.removeCache(this);
  }

  /**
   * Keeps the record among the recent ones when its type is wanted and the budget has room
   * (evicting the oldest first); returns what the riders get: the kept copy, or the record as
   * fetched. Without room, what was kept is forgotten: the recent records stay contiguous.
   */
  #keep(feed: PartitionFeed, record: ConsumedRecord, offset: number): ConsumedRecord {
    const type = eventTypeOf(record.headers);
    // Not taken by any subscriber here: nobody can miss it, so it is passed over as seen.
    if (!(this.#wantAll > 0 || (type === undefined ? this.#wanted.size > 0 : this.#wanted.has(type))))
      return record;
    const bytes = recordBytes(record);
    if (this.#budget !== null && !this.#budget.tryReserveForCache(bytes)) {
      this.#forget(feed, offset + 1);
      return record;
    }
    const kept = keptRecord(record);
    feed.recent.push(kept);
    feed.bytes += bytes;
    // Trimmed in bulk once half as many again have piled up: dropping one record from the
    // front of the array for every record received would move the whole array each time.
    if (feed.recent.length > this.#recentMax * 1.5) this.#trim(feed, feed.recent.length - this.#recentMax);
    return kept;
  }

  /** Drops the `count` oldest recent records: riders can join only after them. */
  #trim(feed: PartitionFeed, count: number): void {
    const dropped = feed.recent.splice(0, count);
    let bytes = 0;
    for (const record of dropped) bytes += recordBytes(record);
    this.#releaseBytes(feed, bytes);
    const last = dropped[dropped.length - 1];
    if (last) feed.base = Number(last.offset) + 1;
  }

  /** Keeps nothing from before `base`. */
  #forget(feed: PartitionFeed, base: number): void {
    feed.recent = [];
    this.#releaseBytes(feed, feed.bytes);
    feed.base = base;
  }

  #releaseBytes(feed: PartitionFeed, bytes: number): void {
    feed.bytes -= bytes;
    this.#budget?.release(bytes);
  }

  #dispatch(partition: number, feed: PartitionFeed, record: ConsumedRecord): void {
    const type = eventTypeOf(record.headers);
    const tenant = eventTenantOf(record.headers);
    // Riders without a tenant, and those of the record's tenant: nobody else is looked at.
    const indexes = [feed.open];
    const ofTenant = tenant === undefined ? undefined : feed.byTenant.get(tenant);
    if (ofTenant !== undefined) indexes.push(ofTenant);
    const groups: (Set<TapRider> | undefined)[] = [];
    // A record without a type goes to every rider it may reach: the delivery dead-letters it as poison.
    for (const index of indexes)
      if (type === undefined) groups.push(ridersOf(index));
      else groups.push(index.byType.get(type), index.anyType);
    for (const riders of groups)
      if (riders)
        for (const rider of riders) {
          let taken = false;
          try {
            taken = rider.offer(record);
          } catch {
            // A rider that fails must not cost the riders after it this record: it goes alone.
            this.#release(partition, rider, Number(record.offset));
            continue;
          }
          if (!taken) this.detach(partition, rider);
        }
  }

  #release(partition: number, rider: TapRider, cursor: number): void {
    this.detach(partition, rider);
    try {
      rider.released(cursor);
    } catch {
      // Nothing more the tap can do for it; it is no longer a rider.
    }
  }

  #releaseAll(partition: number, feed: PartitionFeed): void {
    for (const rider of allRiders(feed)) this.#release(partition, rider, feed.cursor);
  }
}

/**
 * The offset from which every record of `types` (null: every type) is among the recent ones:
 * the base, or later where a type became wanted after it. Infinity: a type nobody here takes.
 */
function keptSince(feed: PartitionFeed, types: ReadonlySet<string> | null): number {
  const all = feed.allFrom ?? Number.POSITIVE_INFINITY;
  let since = types === null ? all : feed.base;
  if (types !== null)
    for (const type of types)
      since = Math.max(since, Math.min(all, feed.keptFrom.get(type) ?? Number.POSITIVE_INFINITY));
  return Math.max(since, feed.base);
}

/** The index of the first of `records` (in offset order) at or past `offset`. */
export function firstFrom(records: readonly ConsumedRecord[], offset: number): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Number(records[mid]?.offset) < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function newIndex(): RiderIndex {
  return { byType: new Map(), anyType: new Set() };
}

function ridersOf(index: RiderIndex): Set<TapRider> {
  const all = new Set(index.anyType);
  for (const riders of index.byType.values()) for (const rider of riders) all.add(rider);
  return all;
}

function allRiders(feed: PartitionFeed): Set<TapRider> {
  const all = ridersOf(feed.open);
  for (const index of feed.byTenant.values()) for (const rider of ridersOf(index)) all.add(rider);
  return all;
}
