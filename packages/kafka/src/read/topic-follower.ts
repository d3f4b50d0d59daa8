import { randomUUID } from 'node:crypto';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { kafkaOf } from '../connection/raw-client.ts';
import { type ConsumedRecord, toConsumedRecord } from '../consume/consumed-record.ts';
import { READER_GROUP_PREFIX } from './topic-reader.ts';

export interface TopicFollowerOptions {
  readonly topic: string;
  /** Names the throwaway group (`hookstream.tool.<purpose>.<uuid>`) so operators see what it is. */
  readonly purpose: string;
  /** Every record from the beginning (or `startAt`), in order per partition. */
  readonly onRecord?: (record: ConsumedRecord) => void;
  /**
   * Each fetched batch, after its records went to onRecord; the next fetch of the partition
   * waits for it. For readers that store their own place (`nextOffset`) with what they made of
   * the records.
   */
  readonly onBatch?: (batch: FollowedBatch) => void | Promise<void>;
  /**
   * Where to start each partition: the next offset a reader stored. Partitions not named, and
   * offsets no longer in the log (retention), start at the earliest record kept.
   */
  readonly startAt?: ReadonlyMap<number, string>;
  /** How long an idle fetch waits (default 500 ms): a new record arrives at once regardless. */
  readonly maxWaitTimeInMs?: number;
}

/** One fetched batch of a partition. */
export interface FollowedBatch {
  readonly partition: number;
  readonly records: readonly ConsumedRecord[];
  /** The offset after the batch (past transaction markers and compacted gaps too). */
  readonly nextOffset: string;
  /** The partition's end offset when the batch was fetched: `nextOffset` short of it is lag. */
  readonly highWatermark: string;
}

/**
 * Follows a small topic (the subscriber catalog) from its beginning for as long as it runs:
 * the record-by-record counterpart of readTopic, for readers that must see changes within a
 * moment. Its group is throwaway (never commits, deleted at stop), so no ledger is touched.
 */
export class TopicFollower {
  readonly #connection: KafkaConnection;
  readonly #options: TopicFollowerOptions;
  readonly #groupId: string;
  readonly #consumer: ReturnType<ReturnType<typeof kafkaOf>['consumer']>;
  readonly #next = new Map<number, bigint>();

  constructor(connection: KafkaConnection, options: TopicFollowerOptions) {
    this.#connection = connection;
    this.#options = options;
    this.#groupId = `${READER_GROUP_PREFIX}${options.purpose}.${randomUUID()}`;
    this.#consumer = kafkaOf(connection).consumer({
      groupId: this.#groupId,
      maxWaitTimeInMs: options.maxWaitTimeInMs ?? 500,
      allowAutoTopicCreation: false,
    });
  }

  /** Starts following; resolves once every record that existed at the call was handed over. */
  async start(): Promise<void> {
    const admin = this.#connection.admin();
    await admin.connect();
    const ends = await admin.topicOffsets(this.#options.topic).finally(() => admin.disconnect());
    const seeks = startOffsets(this.#options.startAt, ends ?? []);
    for (const [partition, offset] of seeks) this.#next.set(partition, offset);
    let caughtUp: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      caughtUp = resolve;
    });
    const check = () => {
      if ((ends ?? []).every((p) => (this.#next.get(p.partition) ?? BigInt(p.low)) >= BigInt(p.high)))
        caughtUp();
    };
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [this.#options.topic], fromBeginning: true });
    await this.#consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        // A fetch made before the seeks took effect (or again after a failed batch) hands over
        // nothing already handed over.
        const from = this.#next.get(batch.partition) ?? 0n;
        // lastOffset() covers compaction gaps and control records the batch skipped.
        const next = BigInt(batch.lastOffset()) + 1n;
        if (next <= from) return;
        const records = batch.messages
          .filter((m) => BigInt(m.offset) >= from)
          .map((m) => toConsumedRecord(batch.topic, batch.partition, m));
        for (const record of records) this.#options.onRecord?.(record);
        await this.#options.onBatch?.({
          partition: batch.partition,
          records,
          nextOffset: String(next),
          highWatermark: batch.highWatermark,
        });
        this.#next.set(batch.partition, next);
        check();
      },
    });
    for (const [partition, offset] of seeks)
      this.#consumer.seek({ topic: this.#options.topic, partition, offset: String(offset) });
    check();
    await done;
  }

  async stop(): Promise<void> {
    await this.#consumer.disconnect().catch(() => undefined);
    const admin = this.#connection.admin();
    await admin.connect();
    try {
      await admin.deleteGroups([this.#groupId]).catch(() => undefined);
    } finally {
      await admin.disconnect();
    }
  }
}

/** The stored offsets that are still in the log; the others start at the earliest kept. */
function startOffsets(
  startAt: ReadonlyMap<number, string> | undefined,
  ends: readonly { readonly partition: number; readonly low: string; readonly high: string }[],
): Map<number, bigint> {
  const seeks = new Map<number, bigint>();
  for (const { partition, low, high } of ends) {
    const stored = startAt?.get(partition);
    if (stored === undefined) continue;
    const offset = BigInt(stored);
    if (offset >= BigInt(low) && offset <= BigInt(high)) seeks.set(partition, offset);
  }
  return seeks;
}
