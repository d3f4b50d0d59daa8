import { randomUUID } from 'node:crypto';
import type { LogFn } from '@hookstream/contracts';
import { TOOL_GROUP_PREFIX } from '@hookstream/contracts';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { explained } from '../../connection/access-refusal.ts';
import type { KafkaConnection } from '../../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../../connection/raw-client.ts';
import { toConsumedRecord } from '../consumed-record.ts';
import type { MemoryBudget } from '../memory-budget.ts';
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

const TAP_GROUP_PREFIX = `${TOOL_GROUP_PREFIX}tap.`;
const DEFAULT_RECENT = 2048;
const TAP_MIN_BYTES = 64 * 1024;
const TAP_FETCH_WAIT_MS = 20;
/** One fetch response holds at most this much per partition and in all (kafkajs's defaults, stated). */
const TAP_MAX_BYTES_PER_PARTITION = 1024 * 1024;
const TAP_MAX_BYTES = 10 * 1024 * 1024;

/**
 * One fetch of the events topic for every subscriber of a process. Each subscriber keeps its own
 * consumer group (its ledger and its share of the partitions), but while it keeps up its own
 * fetch of the events topic stays paused and the tap hands it the records of its types, read
 * once for all: a thousand subscribers cost one stream of records instead of a thousand. The tap
 * never commits and never waits for a delivery; a subscriber that falls behind (its window full,
 * an old ledger) reads on with its own fetch and rides again once it reaches the tap's recent
 * records.
 */
export class EventsTap implements TapFeed {
  readonly topic: string;
  readonly #options: EventsTapOptions;
  readonly #consumer: Consumer;
  readonly #feeds: TapFeeds;

  constructor(options: EventsTapOptions) {
    this.topic = options.topic;
    this.#options = options;
    this.#feeds = new TapFeeds(options.recentRecords ?? DEFAULT_RECENT, options.budget ?? null);
    this.#consumer = kafkaOf(options.kafka).consumer({
      groupId: `${TAP_GROUP_PREFIX}${options.tag}.${randomUUID()}`,
      // A fetch returns once it holds this much or after the wait: under load one fetch carries
      // many records instead of a handful (every request is a round trip and a socket write),
      // idle the tap asks fifty times a second, one consumer for the whole process.
      minBytes: TAP_MIN_BYTES,
      maxWaitTimeInMs: TAP_FETCH_WAIT_MS,
      maxBytesPerPartition: TAP_MAX_BYTES_PER_PARTITION,
      maxBytes: TAP_MAX_BYTES,
    });
    this.#consumer.on(this.#consumer.events.CRASH, ({ payload }) => {
      // Even when kafkajs restarts it, the tap would come back at the topic's end, past records
      // its riders never saw: they read on by themselves, and a dead tap only costs their fetches.
      options.log('error', 'events tap stopped; subscribers read the topic themselves', {
        topic: options.topic,
        error: payload.error.message,
      });
      this.#feeds.kill();
    });
  }

  /** Starts at the topic's end: lanes of caught-up subscribers ride from there. */
  async start(): Promise<void> {
    const { kafka, topic } = this.#options;
    const admin = kafkaOf(kafka).admin();
    await explained(() => admin.connect(), accessOf(kafka, 'connect'));
    let ends: { partition: number; offset: string }[];
    try {
      ends = await admin.fetchTopicOffsets(topic);
    } finally {
      await admin.disconnect();
    }
    await explained(() => this.#consumer.connect(), accessOf(kafka, 'connect'));
    await this.#consumer.subscribe({ topics: [topic], fromBeginning: false });
    // Never commits: its group is only how kafkajs reads; the position is the seek below.
    await this.#consumer.run({ autoCommit: false, eachBatch: (payload) => this.#eachBatch(payload) });
    for (const { partition, offset } of ends) {
      this.#feeds.open(partition, Number(offset));
      this.#consumer.seek({ topic, partition, offset });
    }
  }

  async stop(): Promise<void> {
    this.#feeds.kill();
    await this.#consumer.disconnect();
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

  async #eachBatch({ batch }: EachBatchPayload): Promise<void> {
    // kafkajs's Batch keeps the offset its fetch asked for, though its types omit it.
    const fetchedFrom = Number((batch as unknown as { fetchedOffset?: string }).fetchedOffset ?? -1);
    this.#feeds.receive(
      batch.partition,
      fetchedFrom,
      batch.messages.map((m) => toConsumedRecord(batch.topic, batch.partition, m)),
    );
  }
}
