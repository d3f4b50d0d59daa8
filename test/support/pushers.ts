import { type SubscriberDefinition, subscriberGroupId } from '@hookstream/contracts';
import { parseSigningSecret } from '@hookstream/delivery';
import {
  type ConsumedRecord,
  createKafka,
  createRawConsumer,
  createRawProducer,
  type KafkaAdmin,
  type RawProducer,
} from '@hookstream/kafka';
import { Pusher, type PusherSettings } from '@hookstream/pusher';
import type { EventFactory, TestEvent } from './events.ts';
import { uniqueName } from './names.ts';
import { endpoints } from './stack.ts';
import { waitFor } from './wait.ts';

export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A real broker connection for a test file: topics, producing events, reading ledgers. */
export class KafkaFixture {
  readonly kafka = createKafka({ brokers: endpoints.brokers, clientId: 'pusher-tests', quiet: true });
  readonly admin: KafkaAdmin = this.kafka.admin();
  readonly producer: RawProducer = createRawProducer(this.kafka);
  readonly #pushers: Pusher[] = [];
  /** Each started pusher's log, by subscriber: a wait that times out shows its end. */
  readonly #logs = new Map<string, LogLine[]>();

  async connect(): Promise<void> {
    await this.admin.connect();
    await this.producer.connect();
  }

  async topic(partitions = 3, config?: Readonly<Record<string, string>>): Promise<string> {
    const topic = uniqueName('events-test');
    await this.admin.ensureTopics([
      { topic, partitions, replicationFactor: 1, ...(config ? { config } : {}) },
    ]);
    return topic;
  }

  async produce(topic: string, factory: EventFactory, events: readonly TestEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += 500) {
      const messages = await Promise.all(events.slice(i, i + 500).map((e) => factory.message(e)));
      await this.producer.send({ topic, acks: -1, messages });
    }
  }

  /** Committed offsets of a subscriber's group, summed over partitions (-1 counts as 0). */
  async ledger(subscriber: string, topic: string): Promise<number> {
    const offsets = await this.admin.committedOffsets(subscriberGroupId(subscriber), topic);
    return offsets.reduce((sum, p) => sum + Math.max(Number(p.offset ?? 0), 0), 0);
  }

  /**
   * Whether the subscriber's ledger is past each of these records. Unlike a ledger at the topic's
   * end, it does not wait for the commit of records passed over after them (other types), which
   * the pusher makes 10-20 s late on purpose (ledger-committer.ts).
   */
  async ledgerPast(
    subscriber: string,
    topic: string,
    records: readonly { readonly partition: number; readonly offset: string }[],
  ): Promise<boolean> {
    const committed = new Map(
      (await this.admin.committedOffsets(subscriberGroupId(subscriber), topic)).map((p) => [
        p.partition,
        Number(p.offset ?? -1),
      ]),
    );
    return records.every((r) => (committed.get(r.partition) ?? -1) > Number(r.offset));
  }

  /**
   * Waits until the subscriber's ledger covers every record the topic holds right now. A
   * partition whose records were all passed over (another type or tenant) is committed only
   * after the committer's quiet period, 10 to 20 s drawn at random (LedgerCommitter), so the
   * bound leaves room for the longest of them after the pusher's start.
   */
  async settledEverything(name: string, topic: string): Promise<void> {
    const end = await this.end(topic);
    try {
      await waitFor(
        `${name}'s ledger to reach ${end}`,
        async () => ((await this.ledger(name, topic)) === end ? true : undefined),
        { timeoutMs: 45_000 },
      );
    } catch (err) {
      // What the next reader of a failed run needs: where each partition stood, and what the
      // pusher said last.
      const committed = await this.admin.committedOffsets(subscriberGroupId(name), topic).catch(() => []);
      const said = (this.#logs.get(name) ?? [])
        .slice(-20)
        .map((l) => `  ${l.level} ${l.message} ${JSON.stringify(l.fields)}`);
      throw new Error(
        `${(err as Error).message}; committed ${JSON.stringify(committed)}; its last log lines:\n${said.join('\n')}`,
        { cause: err },
      );
    }
  }

  /** Sum of the topic's high watermarks: the ledger of a subscriber that settled everything. */
  async end(topic: string): Promise<number> {
    const offsets = (await this.admin.topicOffsets(topic)) ?? [];
    return offsets.reduce((sum, p) => sum + Number(p.high), 0);
  }

  async startPusher(
    topic: string,
    definition: Partial<SubscriberDefinition> & { name: string; url: string },
    secret?: string,
    limiterRedisUrl?: string,
    settings: Partial<PusherSettings> = {},
  ): Promise<{ pusher: Pusher; logs: LogLine[] }> {
    const logs: LogLine[] = [];
    const pusher = new Pusher(
      {
        definition: {
          eventTypes: ['*'],
          rate: { perSecond: 1000, burst: 0 },
          concurrency: 10,
          timeoutMs: 5000,
          retry: { delaysMs: [200, 400], maxAttempts: 5, maxAgeMs: 3_600_000, jitter: 0 },
          start: 'earliest',
          ordering: 'none',
          headers: {},
          allowPrivateNetwork: true,
          ...definition,
        },
        signingKey: secret ? parseSigningSecret(secret) : undefined,
      },
      {
        kafka: endpoints.kafka,
        registry: endpoints.registrySettings,
        topic,
        limiterRedisUrl,
        log: (level, message, fields = {}) => logs.push({ level, message, fields }),
        onFatal: (error) => logs.push({ level: 'fatal', message: error.message, fields: {} }),
        ...settings,
      },
    );
    this.#pushers.push(pusher);
    this.#logs.set(definition.name, logs);
    await pusher.start();
    return { pusher, logs };
  }

  /** Every record of a topic, read from the beginning until `count` have arrived. */
  async readTopic(topic: string, count: number, timeoutMs = 30_000): Promise<ConsumedRecord[]> {
    // The pusher creates its own topics when it starts; wait for that rather than fail.
    await waitFor(
      `topic ${topic}`,
      async () => ((await this.admin.listTopics()).includes(topic) ? true : undefined),
      {
        timeoutMs,
      },
    );
    const consumer = createRawConsumer(this.kafka, { groupId: uniqueName('reader'), maxWaitTimeInMs: 100 });
    const records: ConsumedRecord[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe([topic], { fromBeginning: true });
      await consumer.run(async (record) => void records.push(record), { autoCommit: false });
      await waitFor(
        `${count} records in ${topic}`,
        async () => (records.length >= count ? true : undefined),
        {
          timeoutMs,
        },
      );
    } finally {
      await consumer.disconnect();
    }
    return records;
  }

  async close(): Promise<void> {
    await Promise.all(this.#pushers.map((p) => p.stop().catch(() => undefined)));
    await this.producer.disconnect();
    await this.admin.disconnect();
  }
}
