import { isUnknownTopic, KafkaReadError } from '../errors.ts';

// kafkajs's cluster and brokers, as far as the batched admin reads need them (group-batch-offsets.ts,
// topic-depths.ts). Their topics' metadata is asked per call, never added to the cluster's target
// topics: a target topic deleted later (a DLQ, a bench's events topic) fails every refresh after.

export interface ProtocolRequest<T> {
  readonly request: {
    readonly apiKey: number;
    readonly apiVersion: number;
    readonly apiName: string;
    encode(): Promise<unknown>;
  };
  readonly response: { decode(payload: Buffer): Promise<T>; parse(data: T): Promise<T> };
}

export interface ClusterBroker {
  readonly versions: Readonly<Record<number, { minVersion: number; maxVersion: number }>> | null;
  readonly connectionPool: { send<T>(request: ProtocolRequest<T>): Promise<T> };
  metadata(topics: string[]): Promise<{
    topicMetadata: { topic: string; partitionMetadata: { partitionId: number; leader: number }[] }[];
  }>;
  listOffsets(request: {
    replicaId?: number;
    isolationLevel: number;
    topics: { topic: string; partitions: { partition: number; timestamp: number }[] }[];
  }): Promise<{ responses: { topic: string; partitions: { partition: number; offset: string }[] }[] }>;
}

export interface BatchCluster {
  readonly isolationLevel: number;
  findBroker(options: { nodeId: string }): Promise<ClusterBroker>;
  refreshMetadata(): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  /** Tries each broker in turn; null when none answered (their errors are dropped: withAnyBroker). */
  readonly brokerPool: {
    withBroker<T>(call: (b: { broker: ClusterBroker }) => Promise<T>): Promise<T | null>;
  };
}

/**
 * `call` on the first broker that answers it. kafkajs's withBroker answers null when none did and
 * drops their errors, and its callers then failed on the null with a TypeError; this throws the
 * last error instead, so a caller can tell a deleted topic from Kafka being away.
 */
export async function withAnyBroker<T>(
  cluster: BatchCluster,
  call: (broker: ClusterBroker) => Promise<T>,
): Promise<T> {
  let last: unknown;
  const answer = await cluster.brokerPool.withBroker(async ({ broker }) => {
    try {
      return { value: await call(broker) };
    } catch (err) {
      last = err;
      throw err;
    }
  });
  if (answer !== null) return answer.value;
  if (isUnknownTopic(last)) throw last;
  throw new KafkaReadError(
    'KAFKA_UNAVAILABLE',
    `no broker answered: ${last instanceof Error ? last.message : String(last)}`,
    { cause: last },
  );
}

/** Asks after a topic vanished between them: each ask may find another one deleted. */
const VANISHED_TOPIC_ASKS = 3;

/**
 * Each topic's partitions and their leaders, from one Metadata request. A topic deleted since the
 * caller listed it (a subscriber removed, another run's cleanup) is left out of the map, as one
 * that does not exist: Kafka refuses the whole request for it, so the others are asked again.
 */
export async function partitionLeaders(
  cluster: BatchCluster,
  topics: readonly string[],
): Promise<Map<string, { partition: number; leader: number }[]>> {
  // An empty list would ask for every topic.
  if (topics.length === 0) return new Map();
  // The cluster's own refresh fills its broker pool (of its target topics: none, or the sampled one).
  await cluster.refreshMetadataIfNecessary();
  let asking = [...topics];
  for (let ask = 1; ; ask++) {
    try {
      const { topicMetadata } = await withAnyBroker(cluster, (broker) => broker.metadata(asking));
      return new Map(
        topicMetadata.map((t) => [
          t.topic,
          t.partitionMetadata.map((p) => ({ partition: p.partitionId, leader: p.leader })),
        ]),
      );
    } catch (err) {
      if (!isUnknownTopic(err) || ask >= VANISHED_TOPIC_ASKS) throw err;
      const all = await withAnyBroker(cluster, (broker) => broker.metadata([]));
      const existing = new Set(all.topicMetadata.map((t) => t.topic));
      asking = asking.filter((t) => existing.has(t));
      if (asking.length === 0) return new Map();
    }
  }
}
