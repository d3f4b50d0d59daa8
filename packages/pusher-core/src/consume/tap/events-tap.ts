import type { LogFn } from '@hookstream/contracts';
import { type KafkaConnection, TopicTap } from '@hookstream/kafka';
import type { MemoryBudget } from '../memory-budget.ts';
import { type CatchUpFeed, CatchUpFeeds } from './catch-up-feeds.ts';
import { type TapFeed, TapFeeds, type TapRider } from './tap-feeds.ts';

export interface EventsTapOptions {
  readonly kafka: KafkaConnection;
  readonly topic: string;
  readonly log: LogFn;
  /**
   * Names the tap's own group, which never commits (`hookstream.tool.tap.<tag>.<uuid>`: under the
   * tools' prefix, so the pusher's documented ACLs already cover it).
   */
  readonly tag: string;
  /** Records kept per partition, so a lane a little behind can join without its own fetch. */
  readonly recentRecords?: number;
  /** The process's budget: recent records are charged to it, and evicted when others need room. */
  readonly budget?: MemoryBudget | null;
}

const DEFAULT_RECENT = 8192;

/**
 * One fetch of the events topic for every subscriber of a process. Each subscriber keeps its own
 * consumer group (its ledger and its share of the partitions), but while it keeps up its own
 * fetch of the events topic stays paused and the tap hands it the records of its types, read
 * once for all: a thousand subscribers cost one stream of records instead of a thousand. The tap
 * never commits and never waits for a delivery; a subscriber that falls behind (its window full,
 * an old ledger) reads on through the process's second fetch, the catch-up reader, and rides
 * again once it reaches the tap's recent records.
 */
export class EventsTap implements TapFeed {
  readonly topic: string;
  readonly #tap: TopicTap;
  readonly #feeds: TapFeeds;
  readonly #catchUpTap: TopicTap;
  readonly #catchUpFeeds: CatchUpFeeds;
  /** One read of the topic for every lane of the process that is behind what the tap kept. */
  readonly catchUp: CatchUpFeed;

  constructor(options: EventsTapOptions) {
    this.topic = options.topic;
    this.#feeds = new TapFeeds(options.recentRecords ?? DEFAULT_RECENT, options.budget ?? null);
    // A crashed tap tells its feeds: lanes of caught-up subscribers then read on by themselves.
    this.#tap = new TopicTap({
      kafka: options.kafka,
      topic: options.topic,
      log: options.log,
      tag: options.tag,
      sink: this.#feeds,
    });
    const catchUp = new CatchUpFeeds({
      read: (partition, offset) => this.#catchUpTap.read(partition, offset),
      hold: (partition) => this.#catchUpTap.hold(partition),
    });
    this.#catchUpFeeds = catchUp;
    this.catchUp = catchUp;
    this.#catchUpTap = new TopicTap({
      kafka: options.kafka,
      topic: options.topic,
      log: options.log,
      tag: `${options.tag}.catch-up`,
      sink: catchUp,
      from: 'held',
    });
  }

  /** Starts at the topic's end: lanes of caught-up subscribers ride from there. */
  async start(): Promise<void> {
    await this.#tap.start();
    try {
      await this.#catchUpTap.start();
    } catch (err) {
      await this.#tap.stop().catch(() => undefined);
      throw err;
    }
  }

  /** Records the catch-up reader handed to lanes so far, and the lanes it reads for now. */
  catchUpStats(): { handed: number; riders: number } {
    return this.#catchUpFeeds.stats();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#tap.stop(), this.#catchUpTap.stop()]);
  }

  attach(partition: number, rider: TapRider, from: number): boolean {
    return this.#feeds.attach(partition, rider, from);
  }

  detach(partition: number, rider: TapRider): void {
    this.#feeds.detach(partition, rider);
  }

  covers(partition: number, offset: number, types: ReadonlySet<string> | null): boolean {
    return this.#feeds.covers(partition, offset, types);
  }

  /**
   * A subscriber of the process takes `types` (null: every type) until the returned function is
   * called; the tap keeps recent records of no other type.
   */
  want(types: ReadonlySet<string> | null): () => void {
    return this.#feeds.want(types);
  }

  cursor(partition: number): number | null {
    return this.#feeds.cursor(partition);
  }
}
