import { type KafkaConnection, type RecordPosition, type RecordSender, readTopic } from '@hookstream/kafka';
import type { GapLedger } from './gap-recorder.ts';

/** A look for a gap's record reads the whole DLQ; gaps are rare, and a DLQ is small. */
const FIND_TIMEOUT_MS = 30_000;

/**
 * A subscriber's DLQ as the gaps' ledger: a gap's record is found by its key, and written with
 * acks=all. `ensureTopics` creates the DLQ (with the tiers) when the subscriber never failed.
 */
export class KafkaGapLedger implements GapLedger {
  readonly #kafka: KafkaConnection;
  readonly #sender: RecordSender;
  readonly #dlqTopic: string;
  readonly #ensureTopics: () => Promise<void>;

  constructor(
    kafka: KafkaConnection,
    sender: RecordSender,
    dlqTopic: string,
    ensureTopics: () => Promise<void>,
  ) {
    this.#kafka = kafka;
    this.#sender = sender;
    this.#dlqTopic = dlqTopic;
    this.#ensureTopics = ensureTopics;
  }

  async find(key: string): Promise<RecordPosition | null> {
    await this.#ensureTopics();
    const [found] = await readTopic(this.#kafka, {
      topic: this.#dlqTopic,
      keep: (r) => r.key === key,
      purpose: 'gap-check',
      timeoutMs: FIND_TIMEOUT_MS,
    });
    return found === undefined ? null : { partition: found.partition, offset: found.offset };
  }

  async write(key: string, headers: Record<string, string>): Promise<RecordPosition> {
    await this.#ensureTopics();
    const [position] = await this.#sender.send(this.#dlqTopic, [{ key, value: null, headers }]);
    if (position === undefined) throw new Error(`Kafka acknowledged no record of ${this.#dlqTopic}`);
    return position;
  }
}
