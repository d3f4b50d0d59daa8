import { type Message, Partitioners, type Producer, type RecordMetadata } from 'kafkajs';
import { type AccessContext, explained, explainKafkaError } from '../connection/access-refusal.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../connection/raw-client.ts';
import { KafkaSendError } from '../errors.ts';

/**
 * One record to write. Events always have a key, so the partition follows it; a record moved on
 * as it was consumed (a poison record to the DLQ) keeps whatever key and value it had.
 */
export interface OutgoingRecord {
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** Where Kafka stored a record. Offsets are int64, so they travel as decimal strings. */
export interface RecordPosition {
  readonly partition: number;
  readonly offset: string;
}

export interface RecordSenderOptions {
  /** How long the broker may take to get acks from all in-sync replicas (acks=all). */
  readonly ackTimeoutMs?: number;
  /** Retries inside kafkajs for retriable failures (default 2: callers have their own deadline). */
  readonly retries?: number;
}

/**
 * Writes many records in one kafkajs `sendBatch` with acks=all and tells each record's
 * partition and offset. kafkajs only reports a base offset per partition, so the sender records
 * which partition its partitioner picked for each message (the default, Java-compatible
 * murmur2 one) and counts from the base offset in request order. Not idempotent: kafkajs's
 * idempotent producer is experimental and loses records with concurrent requests; event ids
 * make duplicates from retries harmless downstream.
 */
export class RecordSender {
  readonly #producer: Producer;
  readonly #assigned = new WeakMap<Message, number>();
  readonly #ackTimeoutMs: number;
  readonly #access: AccessContext;

  constructor(connection: KafkaConnection, options: RecordSenderOptions = {}) {
    this.#access = accessOf(connection);
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 5000;
    const assigned = this.#assigned;
    this.#producer = kafkaOf(connection).producer({
      allowAutoTopicCreation: false,
      idempotent: false,
      retry: { retries: options.retries ?? 2 },
      createPartitioner: () => {
        const partition = Partitioners.DefaultPartitioner();
        return (args) => {
          const chosen = partition(args);
          assigned.set(args.message, chosen);
          return chosen;
        };
      },
    });
  }

  connect(): Promise<void> {
    return explained(() => this.#producer.connect(), { ...this.#access, action: 'connect' });
  }

  disconnect(): Promise<void> {
    return this.#producer.disconnect();
  }

  /** Resolves once Kafka acknowledged every record (acks=all), with their positions in order. */
  async send(topic: string, records: readonly OutgoingRecord[]): Promise<RecordPosition[]> {
    const messages: Message[] = records.map((r) => ({
      key: r.key,
      value: r.value,
      headers: { ...r.headers },
    }));
    let metadata: RecordMetadata[];
    try {
      metadata = await this.#producer.sendBatch({
        acks: -1,
        timeout: this.#ackTimeoutMs,
        topicMessages: [{ topic, messages }],
      });
    } catch (err) {
      throw toSendError(err, { ...this.#access, action: `write to topic ${topic}` });
    }
    const base = new Map(metadata.map((m) => [m.partition, BigInt(m.baseOffset ?? m.offset ?? '-1')]));
    const next = new Map<number, bigint>();
    return messages.map((message) => {
      const partition = this.#assigned.get(message);
      const start = partition === undefined ? undefined : base.get(partition);
      if (partition === undefined || start === undefined || start < 0n) {
        throw new KafkaSendError('KAFKA_REJECTED', `kafkajs reported no offset for a record of ${topic}`);
      }
      const index = next.get(partition) ?? 0n;
      next.set(partition, index + 1n);
      return { partition, offset: String(start + index) };
    });
  }
}

function toSendError(err: unknown, access: AccessContext): KafkaSendError {
  const refused = explainKafkaError(err, access);
  if (refused !== null)
    return new KafkaSendError('KAFKA_NOT_AUTHORIZED', refused.message, { cause: refused });
  const message = err instanceof Error ? err.message : String(err);
  // kafkajs marks transient failures retriable and wraps exhausted retries in
  // KafkaJSNumberOfRetriesExceeded (whose cause is the last retriable error).
  const e = err as { retriable?: boolean; name?: string };
  const unavailable =
    e.retriable === true ||
    e.name === 'KafkaJSNumberOfRetriesExceeded' ||
    /connect|timeout|closed/i.test(message);
  return new KafkaSendError(unavailable ? 'KAFKA_UNAVAILABLE' : 'KAFKA_REJECTED', message, { cause: err });
}
