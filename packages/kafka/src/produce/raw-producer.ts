import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { kafkaOf } from '../connection/raw-client.ts';

/** A record as a raw producer writes it: no partition bookkeeping, no error mapping. */
export interface RawMessage {
  readonly key?: string | null;
  readonly value: Buffer | string | null;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RawTopicMessages {
  readonly topic: string;
  readonly messages: readonly RawMessage[];
}

/** What the broker answered for one partition of a write. */
export interface RawSendResult {
  readonly topic: string;
  readonly partition: number;
  /** The first offset written to that partition, as a decimal string. */
  readonly baseOffset: string;
}

/** -1 waits for all in-sync replicas (what hookstream's own writes use). */
export type RawAcks = -1 | 0 | 1;

/**
 * The client's producer with nothing of hookstream's around it, for the benchmark's raw-client
 * baseline and for tests that set the scene. Product code writes through RecordSender.
 */
export interface RawProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  send(request: RawTopicMessages & { readonly acks?: RawAcks }): Promise<RawSendResult[]>;
  sendBatch(request: {
    readonly topicMessages: readonly RawTopicMessages[];
    readonly acks?: RawAcks;
  }): Promise<RawSendResult[]>;
}

export function createRawProducer(connection: KafkaConnection): RawProducer {
  const producer = kafkaOf(connection).producer({ allowAutoTopicCreation: false });
  const toMessages = (messages: readonly RawMessage[]) =>
    messages.map((m) => ({ key: m.key ?? null, value: m.value, headers: { ...m.headers } }));
  const toResults = (metadata: { topicName: string; partition: number; baseOffset?: string }[]) =>
    metadata.map((m) => ({ topic: m.topicName, partition: m.partition, baseOffset: m.baseOffset ?? '-1' }));
  return {
    connect: () => producer.connect(),
    disconnect: () => producer.disconnect(),
    send: async ({ topic, messages, acks = -1 }) =>
      toResults(await producer.send({ topic, acks, messages: toMessages(messages) })),
    sendBatch: async ({ topicMessages, acks = -1 }) =>
      toResults(
        await producer.sendBatch({
          acks,
          topicMessages: topicMessages.map((t) => ({ topic: t.topic, messages: toMessages(t.messages) })),
        }),
      ),
  };
}
