import type { ConsumedRecord } from '../consumed-record.ts';
import type { EvictionOutcome } from './evict-member.ts';
import type { LedgerRewind } from './ledger-rewind.ts';

/** Why a member rejoins its group: the group rebalances, or its client rejoins on its own. */
export type RejoinCause = 'rebalance' | 'rejoin';

/** Partitions by topic, as the group gave them to a member. */
export type Assignment = Readonly<Record<string, readonly number[]>>;

export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /**
   * Kafka timestamp of the oldest record at or above `offset` the member holds unsettled (or the
   * commit's time when none): no copy of a record above the ledger is older, so a join looks for
   * copies from there (pusher-core's `SubscriberConsumerOptions.copies`).
   */
  readonly openSinceMs?: number;
  /**
   * The rewind the offset is still below (`carriedRewind`): the commit carries its mark forward,
   * so a member that joins mid-range marks the rest of it too.
   */
  readonly rewind?: LedgerRewind | null;
}

/** Records of one partition the member fetched, in offset order. */
export interface MemberBatch {
  readonly topic: string;
  readonly partition: number;
  readonly size: number;
  /** The record at `index`, made on demand: a batch cut short converts no more than it handed over. */
  record(index: number): ConsumedRecord;
  /** The member's fetch may move past this record. */
  resolve(record: ConsumedRecord): void;
  /** False once the member stopped running, or a rebalance made the batch stale. */
  current(): boolean;
}

export interface MemberCrash {
  /** As the client reported it. */
  readonly error: Error;
  /** The same, explained when it is an access refusal (it then names the setting to look at). */
  readonly explained: Error;
  /** The client rejoins by itself; else the member is gone for good. */
  readonly restart: boolean;
}

export interface MemberEviction {
  readonly memberId: string;
  readonly outcome: EvictionOutcome;
  readonly ms: number;
}

/**
 * What a group member tells its driver, on the client's own schedule: these are the calls that
 * come back up into SubscriberConsumer. None may wait (the member fetches again only once every
 * batch of a fetch returned), so each only hands over or starts work; a rebalance's rejoin alone
 * waits for what `rebalancing` returns.
 */
export interface MemberListener {
  /** A join completed with this assignment: a new generation, everything before it is void. */
  joined(assignment: Assignment): void;
  /**
   * The member is about to rejoin, and every partition may move: `rebalance`, the group said it
   * is rebalancing; `rejoin`, the client rejoins on its own (stale metadata, a stale assignment,
   * the coordinator forgot the member). The member rejoins once the promise returned settles
   * (the driver lets its requests in flight end and commits them first); the driver bounds it
   * well within the session timeout.
   */
  rebalancing(why: RejoinCause): Promise<void>;
  crashed(crash: MemberCrash): void;
  /**
   * After a crash the client restarts from: the member it left behind was taken out of the group
   * (or had left, or the try ran out), so the restarted member's join need not wait out its session.
   */
  evicted?(eviction: MemberEviction): void;
  /** Once, at the member's first completed fetch: the group was joined and every position resolved. */
  firstFetch(): void;
  batch(batch: MemberBatch): void;
}

/**
 * One member of a consumer group, as SubscriberConsumer drives it: its fetch per partition
 * (pause, resume, seek), its commits, and its join, rebalance and crash events. The kafkajs
 * adapter is KafkajsGroupMember; unit tests drive a fake.
 */
export interface GroupMember {
  /**
   * Connects, subscribes to `topics` and starts fetching; partitions the group has no ledger
   * entry for are read from their beginning. The listener hears everything from then on.
   */
  join(topics: readonly string[], listener: MemberListener): Promise<void>;
  pause(topic: string, partitions: readonly number[]): void;
  resume(topic: string, partitions: readonly number[]): void;
  /** The partition's next fetch starts at `offset`; nothing is committed. */
  seek(topic: string, partition: number, offset: number): void;
  /**
   * Commits the offsets as the group's ledger. Rejects when the group moved on to a newer
   * generation (a rebalance) or Kafka is away; the caller commits again later.
   */
  commit(offsets: readonly PartitionOffset[]): Promise<void>;
  /** Leaves the group and disconnects. */
  leave(): Promise<void>;
}
