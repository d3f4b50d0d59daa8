import { randomUUID } from 'node:crypto';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { kafkaOf } from '../connection/raw-client.ts';
import { type ConsumedRecord, toConsumedRecord } from '../consume/consumed-record.ts';
import { READER_GROUP_PREFIX } from './topic-reader.ts';

export interface TopicFollowerOptions {
  readonly topic: string;
  /** Names the throwaway group (`hookstream.tool.<purpose>.<uuid>`) so operators see what it is. */
  readonly purpose: string;
  /** Every record from the beginning, in order per partition. */
  readonly onRecord: (record: ConsumedRecord) => void;
  /** How long an idle fetch waits (default 500 ms): a new record arrives at once regardless. */
  readonly maxWaitTimeInMs?: number;
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
        for (const message of batch.messages)
          this.#options.onRecord(toConsumedRecord(batch.topic, batch.partition, message));
        // lastOffset() covers compaction gaps and control records the batch skipped.
        this.#next.set(batch.partition, BigInt(batch.lastOffset()) + 1n);
        check();
      },
    });
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
