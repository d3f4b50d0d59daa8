import type { RegistrySettings } from '@hookstream/contracts';
import {
  type KafkaConnection,
  type OutgoingRecord,
  type RecordPosition,
  RecordSender,
} from '@hookstream/kafka';
import { MicroBatcher } from '@hookstream/producer';
import { type BenchEvent, BenchEventCodec } from './bench-events.ts';

/**
 * Benchmark events straight to the events topic, one at a time as an open loop sends them:
 * concurrent sends share acks=all writes through the producer's micro-batcher, as the ingress's
 * publishes do.
 */
export class KafkaEventSink {
  readonly #sender: RecordSender;
  readonly #codec: BenchEventCodec;
  readonly #batcher: MicroBatcher<OutgoingRecord, RecordPosition>;

  private constructor(sender: RecordSender, codec: BenchEventCodec, topic: string) {
    this.#sender = sender;
    this.#codec = codec;
    this.#batcher = new MicroBatcher({
      flush: (records) => sender.send(topic, records),
      sizeOf: (r) => (r.value?.length ?? 0) + (r.key?.length ?? 0) + 200,
    });
  }

  static async open(
    kafka: KafkaConnection,
    registry: RegistrySettings,
    topic: string,
  ): Promise<KafkaEventSink> {
    const codec = await BenchEventCodec.forTopic(registry, topic);
    const sender = new RecordSender(kafka);
    await sender.connect();
    return new KafkaEventSink(sender, codec, topic);
  }

  /** Resolves true once Kafka acknowledged the event, false when the write failed. */
  async send(event: BenchEvent): Promise<boolean> {
    try {
      await this.#batcher.submit([await this.#codec.record(event)]);
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.#sender.disconnect();
  }
}
