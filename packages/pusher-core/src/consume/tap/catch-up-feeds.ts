import type { ConsumedRecord, TapSink } from '@hookstream/kafka';
import { firstFrom } from './tap-feeds.ts';

/** A lane behind the live tap: the records its own fetch would get, from the process's catch-up reader. */
export interface CatchUpRider {
  readonly partition: number;
  /**
   * A record in offset order. 'stop': it takes no more of this batch (it rides the live tap,
   * waits for room, or asked to be read from elsewhere; it said so by stop() or read()).
   */
  fromOwnFetch(record: ConsumedRecord): 'next' | 'stop';
  afterOwnBatch(): void;
}

/** The fetch under the feeds: a held TopicTap; a fake in tests. */
export interface PartitionReader {
  /** Its next fetch of the partition starts at `offset`; false: it is not running. */
  read(partition: number, offset: number): boolean;
  hold(partition: number): void;
}

/** What a lane sees of the catch-up reader (CatchUpFeeds; a fake in tests). */
export interface CatchUpFeed {
  /**
   * Reads the partition on for the rider from `offset` until stop(). False: the rider reads by
   * itself (the reader is gone, or the rider is too far behind the others). Later the reader may
   * let go of it: `letGo` gets the offset it reads on from by itself.
   */
  read(rider: CatchUpRider, offset: number, letGo: (offset: number) => void): boolean;
  stop(rider: CatchUpRider): void;
}

interface Reading {
  /** The next offset the rider takes: everything below it was handed to it or is behind its ledger. */
  position: number;
  /** Batches in a row that began past `position` after the reader was sent back for it. */
  misses: number;
  readonly letGo: (offset: number) => void;
}

interface PartitionState {
  readonly riders: Map<CatchUpRider, Reading>;
  /** Where the reader's next fetch starts; null: the partition is held. */
  next: number | null;
  /** The reader was sent to this offset and no batch from there arrived yet. */
  seek: number | null;
  /** Batches in a row from elsewhere than `seek`. */
  stale: number;
  /** Inside receive(): the reader is steered once the batch was handed to every rider. */
  dispatching: boolean;
}

/** A rider the reader fails to reach this often in a row reads by itself (retention moved past it). */
const MAX_MISSES = 3;
/** Batches from before a seek that may still arrive; more, and the seek is asked again. */
const MAX_STALE = 3;
/**
 * A rider this many offsets behind where the reader is, while others ride it, reads by itself:
 * one slow lane must not send the reader back over everything the others already took.
 */
export const CATCH_UP_MAX_BEHIND = 100_000;

/**
 * One fetch of the events topic for every lane of the process that is behind the live tap.
 * Without it, each such lane's group member reads the whole topic by itself, every type, a
 * small answer at a time: after a crash or a join, hundreds of lanes read the same records
 * hundreds of times, and on a busy topic they never reach the live tap. Here each partition is
 * read once from the lowest position any rider needs (sent back when a rider asks from behind
 * it, held when nobody rides), and every batch is handed to each rider from its own position,
 * as its own fetch would have; a lane leaves by riding the live tap once it has caught up.
 */
export class CatchUpFeeds implements TapSink, CatchUpFeed {
  readonly #reader: PartitionReader;
  readonly #partitions = new Map<number, PartitionState>();
  #dead = false;
  /** Records handed to riders so far, one per rider taking or passing over each. */
  #handed = 0;

  constructor(reader: PartitionReader) {
    this.#reader = reader;
  }

  open(partition: number): void {
    if (this.#partitions.has(partition)) return;
    this.#partitions.set(partition, {
      riders: new Map(),
      next: null,
      seek: null,
      stale: 0,
      dispatching: false,
    });
  }

  read(rider: CatchUpRider, offset: number, letGo: (offset: number) => void): boolean {
    const state = this.#partitions.get(rider.partition);
    if (this.#dead || state === undefined) return false;
    const others = state.riders.size - (state.riders.has(rider) ? 1 : 0);
    if (others > 0 && state.next !== null && offset < state.next - CATCH_UP_MAX_BEHIND) {
      state.riders.delete(rider);
      return false;
    }
    const reading = { position: offset, misses: 0, letGo };
    state.riders.set(rider, reading);
    if (!state.dispatching) this.#steer(rider.partition, state);
    // The reader could not be sent there (it stopped): nobody is read for any more.
    return state.riders.get(rider) === reading;
  }

  stop(rider: CatchUpRider): void {
    const state = this.#partitions.get(rider.partition);
    if (state === undefined || !state.riders.delete(rider)) return;
    if (!state.dispatching) this.#steer(rider.partition, state);
  }

  /** Records handed to riders so far (each rider's own count), and the riders read for now. */
  stats(): { handed: number; riders: number } {
    let riders = 0;
    for (const state of this.#partitions.values()) riders += state.riders.size;
    return { handed: this.#handed, riders };
  }

  /** Whether the rider is read for now. */
  reads(rider: CatchUpRider): boolean {
    return this.#partitions.get(rider.partition)?.riders.has(rider) ?? false;
  }

  receive(partition: number, fetchedFrom: number, records: readonly ConsumedRecord[]): void {
    const state = this.#partitions.get(partition);
    const last = records[records.length - 1];
    if (state === undefined || this.#dead || last === undefined) return;
    // From before the latest seek: its records are the partition's all the same, but the reader
    // goes on from the seek, and only riders at or past `fetchedFrom` can take them.
    const stale = state.seek !== null && fetchedFrom !== state.seek;
    // Otherwise it follows on from the previous batch; anything Kafka skipped in between
    // (control records, an empty stretch) held nothing for a consumer.
    const from = stale || state.next === null ? fetchedFrom : Math.min(fetchedFrom, state.next);
    state.stale = stale ? state.stale + 1 : 0;
    if (!stale) {
      state.seek = null;
      state.next = Number(last.offset) + 1;
    }
    state.dispatching = true;
    try {
      for (const [rider, reading] of [...state.riders]) this.#hand(state, rider, reading, from, records);
    } finally {
      state.dispatching = false;
    }
    if (state.stale >= MAX_STALE) {
      // The seek is not being answered from where it asked (retention moved the log's start past
      // it, say): ask again, and count a miss for every rider the answers start beyond.
      for (const [rider, reading] of [...state.riders])
        if (reading.position < fetchedFrom && ++reading.misses >= MAX_MISSES)
          this.#letGo(state, rider, reading.position);
      state.stale = 0;
      // Sent there again below, or held if nobody is left.
      if (state.riders.size > 0) state.next = null;
    }
    this.#steer(partition, state);
  }

  /** The reader stopped or crashed: every rider reads on by itself. */
  kill(): void {
    if (this.#dead) return;
    this.#dead = true;
    for (const state of this.#partitions.values()) {
      const riders = [...state.riders.values()];
      state.riders.clear();
      for (const reading of riders) letGoSafely(reading, reading.position);
    }
  }

  /** Hands the rider the batch from its position, as its own fetch would have. */
  #hand(
    state: PartitionState,
    rider: CatchUpRider,
    reading: Reading,
    from: number,
    records: readonly ConsumedRecord[],
  ): void {
    if (state.riders.get(rider) !== reading) return;
    if (reading.position < from) {
      // The reader was sent back for it and still answered from further on.
      if (state.seek === null && ++reading.misses >= MAX_MISSES) this.#letGo(state, rider, reading.position);
      return;
    }
    const start = firstFrom(records, reading.position);
    if (start === records.length) return;
    let stopped = false;
    // A rider that fails must not cost the others this batch: it reads on by itself from there.
    let failedAt: number | null = null;
    for (let i = start; i < records.length && !stopped; i++) {
      const record = records[i] as ConsumedRecord;
      try {
        this.#handed++;
        stopped = rider.fromOwnFetch(record) === 'stop';
      } catch {
        failedAt = Number(record.offset);
        break;
      }
    }
    if (failedAt === null && !stopped && state.riders.get(rider) === reading) {
      reading.position = Number((records[records.length - 1] as ConsumedRecord).offset) + 1;
      reading.misses = 0;
    }
    try {
      rider.afterOwnBatch();
    } catch {
      failedAt ??= reading.position;
    }
    if (failedAt !== null) this.#letGo(state, rider, failedAt);
  }

  #letGo(state: PartitionState, rider: CatchUpRider, offset: number): void {
    const reading = state.riders.get(rider);
    if (reading === undefined) return;
    state.riders.delete(rider);
    letGoSafely(reading, offset);
  }

  /** Reads from the lowest position a rider needs, or holds the partition when nobody rides. */
  #steer(partition: number, state: PartitionState): void {
    if (this.#dead) return;
    let lowest = Number.POSITIVE_INFINITY;
    for (const reading of state.riders.values()) lowest = Math.min(lowest, reading.position);
    if (lowest === Number.POSITIVE_INFINITY) {
      if (state.next !== null) this.#reader.hold(partition);
      state.next = null;
      state.seek = null;
      return;
    }
    if (lowest === state.next) return;
    if (!this.#reader.read(partition, lowest)) {
      this.kill();
      return;
    }
    state.next = lowest;
    state.seek = lowest;
    state.stale = 0;
  }
}

function letGoSafely(reading: Reading, offset: number): void {
  try {
    reading.letGo(offset);
  } catch {
    // Its own fetch could not start either: the lane's member restarts it at the next join.
  }
}
