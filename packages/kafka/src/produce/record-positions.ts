import type { Message, Partitioners, RecordMetadata } from 'kafkajs';
import { KafkaSendError } from '../errors.ts';
import { createMurmur2Partitioner } from './murmur2.ts';

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

/**
 * kafkajs only reports a base offset per partition, so a writer records which partition its
 * partitioner (the default, Java-compatible murmur2 one, computed by murmur2.ts) picked for each message and counts from
 * the base offset in request order.
 */
export class RecordPositions {
  readonly #assigned = new WeakMap<Message, number>();

  /** The partitioner to give kafkajs's producer: the default one's choices, remembered. */
  readonly createPartitioner = () => {
    const partition = createMurmur2Partitioner();
    const assigned = this.#assigned;
    return (args: Parameters<ReturnType<typeof Partitioners.DefaultPartitioner>>[0]) => {
      const chosen = partition(args);
      assigned.set(args.message, chosen);
      return chosen;
    };
  };

  messages(records: readonly OutgoingRecord[]): Message[] {
    return records.map((r) => ({ key: r.key, value: r.value, headers: { ...r.headers } }));
  }

  /** Each message's position, in order, from what the broker answered for one topic. */
  of(topic: string, messages: readonly Message[], metadata: readonly RecordMetadata[]): RecordPosition[] {
    const base = new Map(
      metadata
        .filter((m) => m.topicName === topic)
        .map((m) => [m.partition, BigInt(m.baseOffset ?? m.offset ?? '-1')]),
    );
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
