import type { Producer, RecordMetadata } from 'kafkajs';
import { type AccessContext, explained } from '../connection/access-refusal.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../connection/raw-client.ts';
import { KafkaFencedError } from '../errors.ts';
import { type OutgoingRecord, type RecordPosition, RecordPositions } from './record-positions.ts';
import { toTransactionError } from './send-error.ts';

export interface TransactionalWriterOptions {
  /** Names the writer: taking it fences every earlier writer of the same id. */
  readonly transactionalId: string;
  /** The broker aborts a transaction left open longer than this (default 30 s). */
  readonly transactionTimeoutMs?: number;
  /** How long the broker may take to get acks from all in-sync replicas (default 10 s). */
  readonly ackTimeoutMs?: number;
}

/** The writes of one open transaction: each send answers the records' positions, in order. */
export interface Transaction {
  send(topic: string, records: readonly OutgoingRecord[]): Promise<RecordPosition[]>;
}

/**
 * Writes in Kafka transactions: what one `transaction` call sends is visible to read_committed
 * readers all together at its commit, or never. `connect` takes the transactional id, which
 * fences every earlier writer of that id (its later sends and commits fail with
 * KafkaFencedError) and aborts the transaction it left open, so two processes can never both
 * write as one id. That is what makes it a lease that fences (docs/security.md, "Replays: one at
 * a time").
 */
export class TransactionalWriter {
  readonly #producer: Producer;
  readonly #positions = new RecordPositions();
  readonly #ackTimeoutMs: number;
  readonly #access: AccessContext;
  readonly #id: string;
  /** Once fenced, for good: kafkajs still thinks the refused transaction is open. */
  #fenced: KafkaFencedError | null = null;

  constructor(connection: KafkaConnection, options: TransactionalWriterOptions) {
    this.#id = options.transactionalId;
    this.#access = accessOf(connection);
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.#producer = kafkaOf(connection).producer({
      allowAutoTopicCreation: false,
      transactionalId: options.transactionalId,
      transactionTimeout: options.transactionTimeoutMs ?? 30_000,
      // kafkajs's transactions are always idempotent; `idempotent` here would only add a second,
      // non-transactional producer id at connect, which nothing uses.
      idempotent: false,
      maxInFlightRequests: 1,
      retry: { retries: 5 },
      createPartitioner: this.#positions.createPartitioner,
    });
  }

  /** Connects and takes the transactional id (InitProducerId), fencing earlier writers of it. */
  async connect(): Promise<void> {
    const access = { ...this.#access, action: `take transactional id ${this.#id}` };
    await explained(() => this.#producer.connect(), access);
    try {
      // kafkajs asks for the id's producer epoch at the first transaction; one that writes
      // nothing ends without a request.
      const txn = await this.#producer.transaction();
      await txn.abort();
    } catch (err) {
      throw toTransactionError(err, access);
    }
  }

  disconnect(): Promise<void> {
    return this.#producer.disconnect();
  }

  /**
   * Runs `write` in one transaction and commits it; aborts it when `write` throws. Resolves once
   * the commit is acknowledged. KafkaFencedError: a newer writer took the id; nothing of this
   * transaction becomes visible, and this writer can write no more.
   */
  async transaction<T>(write: (txn: Transaction) => Promise<T>): Promise<T> {
    if (this.#fenced !== null) throw this.#fenced;
    try {
      return await this.#transaction(write);
    } catch (err) {
      if (err instanceof KafkaFencedError) this.#fenced = err;
      throw err;
    }
  }

  async #transaction<T>(write: (txn: Transaction) => Promise<T>): Promise<T> {
    const access = { ...this.#access, action: `write in a transaction as ${this.#id}` };
    let txn: Awaited<ReturnType<Producer['transaction']>>;
    try {
      txn = await this.#producer.transaction();
    } catch (err) {
      throw toTransactionError(err, access);
    }
    let result: T;
    try {
      result = await write({
        send: async (topic, records) => {
          const messages = this.#positions.messages(records);
          let metadata: RecordMetadata[];
          try {
            metadata = await txn.sendBatch({
              acks: -1,
              timeout: this.#ackTimeoutMs,
              topicMessages: [{ topic, messages }],
            });
          } catch (err) {
            throw toTransactionError(err, {
              ...this.#access,
              action: `write to topic ${topic} as ${this.#id}`,
            });
          }
          return this.#positions.of(topic, messages, metadata);
        },
      });
    } catch (err) {
      // A fenced writer's abort is refused too; the broker aborts the transaction for it.
      if (!(err instanceof KafkaFencedError)) await txn.abort().catch(() => undefined);
      throw err;
    }
    try {
      await txn.commit();
    } catch (err) {
      throw toTransactionError(err, access);
    }
    return result;
  }
}
