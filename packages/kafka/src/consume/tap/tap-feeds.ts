import { CE_HEADER } from '@hookstream/contracts';
import type { ConsumedRecord } from '../consumed-record.ts';

/** Where a tap's records go: one subscriber's lane on one partition. */
export interface TapRider {
  /** Event types it wants (`*`: all); records of other types never reach it. */
  readonly accepts: (type: string) => boolean;
  /** The types, for the index; null: every type. */
  readonly types: ReadonlySet<string> | null;
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
  covers(partition: number, offset: number): boolean;
  cursor(partition: number): number | null;
}

interface PartitionFeed {
  /** The next offset the tap hands out; everything from `base` below it was seen. */
  cursor: number;
  base: number;
  recent: ConsumedRecord[];
  byType: Map<string, Set<TapRider>>;
  anyType: Set<TapRider>;
}

/**
 * The tap's bookkeeping without Kafka: per partition, the next offset to hand out, the recent
 * records (so a lane a little behind can join without a fetch of its own) and the riders indexed
 * by event type, so a record costs only the subscribers that want it.
 */
export class TapFeeds implements TapFeed {
  readonly #feeds = new Map<number, PartitionFeed>();
  readonly #recentMax: number;
  #dead = false;

  constructor(recentMax: number) {
    this.#recentMax = recentMax;
  }

  /** The tap reads the partition from `end` on. */
  open(partition: number, end: number): void {
    this.#feeds.set(partition, { cursor: end, base: end, recent: [], byType: new Map(), anyType: new Set() });
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
      feed.base = fetchedFrom;
      feed.recent = [];
    }
    for (const record of records) {
      const offset = Number(record.offset);
      if (offset < feed.cursor) continue;
      feed.cursor = offset + 1;
      feed.recent.push(record);
      // Trimmed in bulk once half as many again have piled up: dropping one record from the
      // front of the array for every record received would move the whole array each time.
      if (feed.recent.length > this.#recentMax * 1.5) {
        const dropped = feed.recent.splice(0, feed.recent.length - this.#recentMax);
        const last = dropped[dropped.length - 1];
        if (last) feed.base = Number(last.offset) + 1;
      }
      this.#dispatch(partition, feed, record);
    }
  }

  attach(partition: number, rider: TapRider, from: number): boolean {
    const feed = this.#feeds.get(partition);
    if (this.#dead || feed === undefined || from < feed.base) return false;
    for (const record of feed.recent) {
      if (Number(record.offset) < from) continue;
      const type = record.headers[CE_HEADER.type];
      if ((type === undefined || rider.accepts(type)) && !rider.offer(record)) return false;
    }
    if (rider.types === null) feed.anyType.add(rider);
    else
      for (const type of rider.types) {
        let riders = feed.byType.get(type);
        if (!riders) {
          riders = new Set();
          feed.byType.set(type, riders);
        }
        riders.add(rider);
      }
    return true;
  }

  detach(partition: number, rider: TapRider): void {
    const feed = this.#feeds.get(partition);
    if (!feed) return;
    feed.anyType.delete(rider);
    if (rider.types !== null) for (const type of rider.types) feed.byType.get(type)?.delete(rider);
  }

  covers(partition: number, offset: number): boolean {
    const feed = this.#feeds.get(partition);
    return !this.#dead && feed !== undefined && offset >= feed.base;
  }

  cursor(partition: number): number | null {
    return this.#dead ? null : (this.#feeds.get(partition)?.cursor ?? null);
  }

  /** The tap stopped: every rider reads on by itself, and nobody rides again. */
  kill(): void {
    if (this.#dead) return;
    this.#dead = true;
    for (const [partition, feed] of this.#feeds) this.#releaseAll(partition, feed);
  }

  #dispatch(partition: number, feed: PartitionFeed, record: ConsumedRecord): void {
    const type = record.headers[CE_HEADER.type];
    // A record without a type goes to everyone: the delivery dead-letters it as poison.
    const groups = type === undefined ? [allRiders(feed)] : [feed.byType.get(type), feed.anyType];
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

function allRiders(feed: PartitionFeed): Set<TapRider> {
  const all = new Set(feed.anyType);
  for (const riders of feed.byType.values()) for (const rider of riders) all.add(rider);
  return all;
}
