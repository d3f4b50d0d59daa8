import {
  type BatchCluster,
  type ClusterBroker,
  type ProtocolRequest,
  partitionLeaders,
  withAnyBroker,
} from './cluster-metadata.ts';
import {
  decodeFindCoordinatorV4,
  decodeOffsetFetchV8,
  encodeFindCoordinatorV4,
  encodeOffsetFetchV8,
  encoderOf,
  FIND_COORDINATOR_API_KEY,
  FIND_COORDINATOR_BATCH_VERSION,
  type GroupOffsetsAnswer,
  OFFSET_FETCH_API_KEY,
  OFFSET_FETCH_BATCH_VERSION,
} from './group-batch-codec.ts';

/** Groups asked in one OffsetFetch: a bounded request however big the page. */
const GROUPS_PER_REQUEST = 500;

/** What the batch could answer, and the groups it could not (to be asked one by one). */
export interface GroupsOffsets {
  /** By group id, Kafka's answer for the topic's partitions (-1: none committed). */
  readonly answers: ReadonlyMap<string, GroupOffsetsAnswer['topics'][number]['partitions']>;
  readonly unanswered: readonly string[];
}

/**
 * The committed offsets of many groups on one topic: one FindCoordinator (v4) for all of them,
 * then one OffsetFetch (v8) per coordinator. A group whose coordinator moved or is loading, or
 * that Kafka answers with any other error, is left `unanswered`; so is every group when a
 * broker does not speak these versions.
 */
export async function fetchGroupsOffsets(
  cluster: BatchCluster,
  groupIds: readonly string[],
  topic: string,
): Promise<GroupsOffsets> {
  const answers = new Map<string, GroupOffsetsAnswer['topics'][number]['partitions']>();
  if (groupIds.length === 0) return { answers, unanswered: [] };
  const partitions = ((await partitionLeaders(cluster, [topic])).get(topic) ?? []).map((p) => p.partition);
  const coordinators = await withAnyBroker(cluster, async (broker) =>
    speaks(broker, FIND_COORDINATOR_API_KEY, FIND_COORDINATOR_BATCH_VERSION)
      ? broker.connectionPool.send(findCoordinators(groupIds))
      : [],
  );
  const byNode = new Map<number, string[]>();
  for (const c of coordinators)
    if (c.errorCode === 0) byNode.set(c.nodeId, [...(byNode.get(c.nodeId) ?? []), c.key]);
  await Promise.all(
    [...byNode].map(async ([nodeId, groups]) => {
      const broker = await cluster.findBroker({ nodeId: String(nodeId) });
      if (!speaks(broker, OFFSET_FETCH_API_KEY, OFFSET_FETCH_BATCH_VERSION)) return;
      for (let i = 0; i < groups.length; i += GROUPS_PER_REQUEST) {
        const asks = groups
          .slice(i, i + GROUPS_PER_REQUEST)
          .map((groupId) => ({ groupId, topics: [{ topic, partitions }] }));
        for (const g of await broker.connectionPool.send(offsetFetch(asks))) {
          const answer = g.topics.find((t) => t.topic === topic)?.partitions ?? [];
          // A coordinator error (moved, loading) or any other: that group is asked the old way.
          if (g.errorCode === 0 && answer.every((p) => p.errorCode === 0)) answers.set(g.groupId, answer);
        }
      }
    }),
  );
  return { answers, unanswered: groupIds.filter((g) => !answers.has(g)) };
}

/**
 * One group's committed offsets on several topics, by topic: one FindCoordinator (v4) and one
 * OffsetFetch (v8), asked with the partitions given (so no topic becomes a target of kafkajs's
 * metadata). Null when the batch cannot answer (a coordinator error, an older broker): the
 * caller asks the kafkajs way.
 */
export async function fetchGroupTopicsOffsets(
  cluster: BatchCluster,
  groupId: string,
  partitions: ReadonlyMap<string, readonly number[]>,
): Promise<Map<string, GroupOffsetsAnswer['topics'][number]['partitions']> | null> {
  const [coordinator] = await withAnyBroker(cluster, async (broker) =>
    speaks(broker, FIND_COORDINATOR_API_KEY, FIND_COORDINATOR_BATCH_VERSION)
      ? broker.connectionPool.send(findCoordinators([groupId]))
      : [],
  );
  if (coordinator === undefined || coordinator.errorCode !== 0) return null;
  const broker = await cluster.findBroker({ nodeId: String(coordinator.nodeId) });
  if (!speaks(broker, OFFSET_FETCH_API_KEY, OFFSET_FETCH_BATCH_VERSION)) return null;
  const topics = [...partitions].map(([topic, ps]) => ({ topic, partitions: [...ps] }));
  const [answer] = await broker.connectionPool.send(offsetFetch([{ groupId, topics }]));
  if (answer === undefined || answer.errorCode !== 0) return null;
  const out = new Map<string, GroupOffsetsAnswer['topics'][number]['partitions']>();
  for (const t of answer.topics) {
    if (t.partitions.some((p) => p.errorCode !== 0)) return null;
    out.set(t.topic, t.partitions);
  }
  return topics.every((t) => out.has(t.topic)) ? out : null;
}

function speaks(broker: ClusterBroker, apiKey: number, version: number): boolean {
  const range = broker.versions?.[apiKey];
  return range !== undefined && range.minVersion <= version && version <= range.maxVersion;
}

function findCoordinators(
  groupIds: readonly string[],
): ProtocolRequest<ReturnType<typeof decodeFindCoordinatorV4>> {
  return protocolRequest(
    FIND_COORDINATOR_API_KEY,
    FIND_COORDINATOR_BATCH_VERSION,
    'FindCoordinator',
    encodeFindCoordinatorV4(groupIds),
    decodeFindCoordinatorV4,
  );
}

function offsetFetch(
  asks: Parameters<typeof encodeOffsetFetchV8>[0],
): ProtocolRequest<ReturnType<typeof decodeOffsetFetchV8>> {
  return protocolRequest(
    OFFSET_FETCH_API_KEY,
    OFFSET_FETCH_BATCH_VERSION,
    'OffsetFetch',
    encodeOffsetFetchV8(asks),
    decodeOffsetFetchV8,
  );
}

function protocolRequest<T>(
  apiKey: number,
  apiVersion: number,
  apiName: string,
  body: Buffer,
  decode: (payload: Buffer) => T,
): ProtocolRequest<T> {
  return {
    request: { apiKey, apiVersion, apiName, encode: async () => encoderOf(body) },
    response: { decode: async (payload) => decode(payload), parse: async (data) => data },
  };
}
