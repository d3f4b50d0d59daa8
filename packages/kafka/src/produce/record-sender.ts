import type { Producer, RecordMetadata } from 'kafkajs';
import { type AccessContext, explained } from '../connection/access-refusal.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../connection/raw-client.ts';
import { type OutgoingRecord, type RecordPosition, RecordPositions } from './record-positions.ts';
import { toSendError } from './send-error.ts';

export interface RecordSenderOptions {
  /** How long the broker may take to get acks from all in-sync replicas (acks=all). */
  readonly ackTimeoutMs?: number;
  /** Retries inside kafkajs for retriable failures (default 2: callers have their own deadline). */
  readonly retries?: number;
}

/**
 * Writes many records in one kafkajs `sendBatch` with acks=all and tells each record's
 * partition and offset (RecordPositions). Not idempotent: kafkajs's
 * idempotent producer is experimental and loses records with concurrent requests. A retry
 * resends only the partitions not written (the `produce-retry` patch); an answer that never came
 * stays ambiguous, and event ids make those duplicates harmless downstream.
 */
export class RecordSender {
  readonly #producer: Producer;
  readonly #positions = new RecordPositions();
  readonly #ackTimeoutMs: number;
  readonly #access: AccessContext;

  constructor(connection: KafkaConnection, options: RecordSenderOptions = {}) {
    this.#access = accessOf(connection);
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 5000;
    this.#producer = kafkaOf(connection).producer({
      allowAutoTopicCreation: false,
      idempotent: false,
      retry: { retries: options.retries ?? 2 },
      createPartitioner: this.#positions.createPartitioner,
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
    const messages = this.#positions.messages(records);
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
    return this.#positions.of(topic, messages, metadata);
  }
}
