import { randomUUID } from 'node:crypto';
import type { LogFn } from '@hookstream/contracts';
import { TOOL_GROUP_PREFIX } from '@hookstream/contracts';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { explained } from '../connection/access-refusal.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../connection/raw-client.ts';
import { type ConsumedRecord, toConsumedRecord } from './consumed-record.ts';

/** Where a tap's records go: the call it is given, on kafkajs's schedule. */
export interface TapSink {
  /** Before the first record: the partition is read from `offset` (the topic's end at start). */
  open(partition: number, offset: number): void;
  /** Records of one partition in offset order; `fetchedFrom`: the offset the fetch asked for. */
  receive(partition: number, fetchedFrom: number, records: readonly ConsumedRecord[]): void;
  /** The tap stopped, or crashed and will not come back where it was. */
  kill(): void;
}

export interface TopicTapOptions {
  readonly kafka: KafkaConnection;
  readonly topic: string;
  readonly log: LogFn;
  /**
   * Names the tap's own group, which never commits (`hookstream.tool.tap.<tag>.<uuid>`: under the
   * tools' prefix, so the pusher's documented ACLs already cover it).
   */
  readonly tag: string;
  readonly sink: TapSink;
  /**
   * `end` (the default): every partition is read from the topic's end at start. `held`: no
   * partition is read until `read()` asks for it from an offset (a catch-up reader).
   */
  readonly from?: 'end' | 'held';
}

const TAP_GROUP_PREFIX = `${TOOL_GROUP_PREFIX}tap.`;
const TAP_MIN_BYTES = 64 * 1024;
const TAP_FETCH_WAIT_MS = 20;
/** One fetch response holds at most this much per partition and in all (kafkajs's defaults, stated). */
const TAP_MAX_BYTES_PER_PARTITION = 1024 * 1024;
const TAP_MAX_BYTES = 10 * 1024 * 1024;

/**
 * One fetch of a topic from its end, that never commits and never waits for its sink: the
 * driver under a fleet's events tap (pusher-core's `consume/`), which hands the records on.
 */
export class TopicTap {
  readonly topic: string;
  readonly #options: TopicTapOptions;
  readonly #consumer: Consumer;

  constructor(options: TopicTapOptions) {
    this.topic = options.topic;
    this.#options = options;
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
      // its sink never saw: the sink is told it is gone.
      options.log('error', 'events tap stopped; subscribers read the topic themselves', {
        topic: options.topic,
        error: payload.error.message,
      });
      options.sink.kill();
    });
  }

  /** Starts at the topic's end, or holding every partition. */
  async start(): Promise<void> {
    const { kafka, topic, sink } = this.#options;
    const admin = kafkaOf(kafka).admin();
    await explained(() => admin.connect(), accessOf(kafka, 'connect'));
    let ends: { partition: number; offset: string }[];
    try {
      ends = await admin.fetchTopicOffsets(topic);
    } finally {
      await admin.disconnect();
    }
    await explained(() => this.#consumer.connect(), accessOf(kafka, 'connect'));
    // Held: a position below the log's start (retention) resets to the start, not past everything.
    await this.#consumer.subscribe({ topics: [topic], fromBeginning: this.#options.from === 'held' });
    // Never commits: its group is only how kafkajs reads; the position is the seek below.
    await this.#consumer.run({ autoCommit: false, eachBatch: (payload) => this.#eachBatch(payload) });
    if (this.#options.from === 'held')
      this.#consumer.pause([{ topic, partitions: ends.map(({ partition }) => partition) }]);
    for (const { partition, offset } of ends) {
      sink.open(partition, Number(offset));
      if (this.#options.from !== 'held') this.#consumer.seek({ topic, partition, offset });
    }
  }

  /**
   * Reads the partition from `offset` on (its next fetch; a fetch already under way may still
   * answer from where it was). False: the consumer is not running (stopped, or restarting after
   * a crash), and nothing was asked.
   */
  read(partition: number, offset: number): boolean {
    try {
      this.#consumer.seek({ topic: this.topic, partition, offset: String(offset) });
      this.#consumer.resume([{ topic: this.topic, partitions: [partition] }]);
      return true;
    } catch {
      return false;
    }
  }

  /** Stops fetching the partition until read() asks for it again. */
  hold(partition: number): void {
    try {
      this.#consumer.pause([{ topic: this.topic, partitions: [partition] }]);
    } catch {
      // Not running: it fetches nothing anyway.
    }
  }

  async stop(): Promise<void> {
    this.#options.sink.kill();
    await this.#consumer.disconnect();
  }

  async #eachBatch({ batch }: EachBatchPayload): Promise<void> {
    // kafkajs's Batch keeps the offset its fetch asked for, though its types omit it.
    const fetchedFrom = Number((batch as unknown as { fetchedOffset?: string }).fetchedOffset ?? -1);
    this.#options.sink.receive(
      batch.partition,
      fetchedFrom,
      batch.messages.map((m) => toConsumedRecord(batch.topic, batch.partition, m)),
    );
  }
}
