import {
  type KafkaConnection,
  type OutgoingRecord,
  type RecordPosition,
  RecordSender,
} from '@hookstream/kafka';

/**
 * Writes to one of hookstream's own topics (the catalog, the audit trail), ensuring the topic
 * before the first write and again after a failed one. With a `sender` its owner keeps connected
 * (the API), every write goes through it; without one, each write connects a sender of its own.
 */
export class OwnTopicWriter {
  readonly #kafka: KafkaConnection;
  readonly #topic: string;
  readonly #ensure: () => Promise<void>;
  readonly #sender: RecordSender | undefined;
  #ensured = false;

  constructor(
    kafka: KafkaConnection,
    topic: string,
    options: { readonly ensure: () => Promise<void>; readonly sender?: RecordSender | undefined },
  ) {
    this.#kafka = kafka;
    this.#topic = topic;
    this.#ensure = options.ensure;
    this.#sender = options.sender;
  }

  /** Ensures the topic now (a long-running owner at its start), so the first write need not. */
  async ensure(): Promise<void> {
    await this.#ensure();
    this.#ensured = true;
  }

  /** Resolves once Kafka acknowledged every record (acks=all), with their positions in order. */
  async send(records: readonly OutgoingRecord[]): Promise<RecordPosition[]> {
    try {
      if (!this.#ensured) await this.ensure();
      if (this.#sender !== undefined) return await this.#sender.send(this.#topic, records);
      const sender = new RecordSender(this.#kafka);
      await sender.connect();
      try {
        return await sender.send(this.#topic, records);
      } finally {
        await sender.disconnect();
      }
    } catch (err) {
      this.#ensured = false;
      throw err;
    }
  }
}
