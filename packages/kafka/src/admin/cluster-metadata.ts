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
  readonly brokerPool: { withBroker<T>(call: (b: { broker: ClusterBroker }) => Promise<T>): Promise<T> };
}

/** Each topic's partitions and their leaders, from one Metadata request; throws if any topic is unknown. */
export async function partitionLeaders(
  cluster: BatchCluster,
  topics: readonly string[],
): Promise<Map<string, { partition: number; leader: number }[]>> {
  // The cluster's own refresh fills its broker pool (of its target topics: none, or the sampled one).
  await cluster.refreshMetadataIfNecessary();
  const { topicMetadata } = await cluster.brokerPool.withBroker(({ broker }) => broker.metadata([...topics]));
  return new Map(
    topicMetadata.map((t) => [
      t.topic,
      t.partitionMetadata.map((p) => ({ partition: p.partitionId, leader: p.leader })),
    ]),
  );
}
