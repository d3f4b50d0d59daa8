import type { AclGrant } from '@hookstream/contracts';
import type { Admin, ConfigResourceTypes, ConfigSource, Kafka } from 'kafkajs';
import { explained } from '../connection/access-refusal.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { accessOf, checkTlsOf, kafkaOf } from '../connection/raw-client.ts';
import { createAcls } from './acls.ts';
import type { BatchCluster } from './cluster-metadata.ts';
import { fetchGroupsOffsets } from './group-batch-offsets.ts';
import { fetchGroupLedger, type TopicLedger } from './group-ledger-read.ts';
import {
  type CommittedOffset,
  commitGroupOffsets,
  committedOffsetsOfGroups,
  deleteGroups,
  fetchCommittedOffsets,
  type GroupOffsetCommit,
  listGroupIds,
} from './group-offsets.ts';
import { describeGroupStates, type GroupState } from './group-states.ts';
import { fetchTopicDepth, lagOf, type TopicLag } from './lag.ts';
import { LeaderCache } from './leader-cache.ts';
import {
  createInternalCluster,
  type InternalCluster,
  type RecordSample,
  sampleRecords,
} from './record-samples.ts';
import { retryRetriable } from './retriable.ts';
import { fetchTopicDepths, LATEST, offsetsAt } from './topic-depths.ts';
import {
  brokerCount,
  knownPartitionRanges,
  listTopicNames,
  type PartitionRange,
  partitionRanges,
  topicExists,
} from './topic-info.ts';
import { ensureTopics, type LeaderWait, type TopicSpec } from './topics.ts';

// ConfigResourceTypes.TOPIC. kafkajs is CommonJS and Node's ESM loader does not see that
// named export (only some of its exports are detectable), so the value is spelled out here.
const TOPIC_RESOURCE: ConfigResourceTypes = 2;
// ConfigSource.TOPIC_CONFIG, spelled out for the same reason: a setting made on the topic itself.
const DYNAMIC_TOPIC_CONFIG: ConfigSource = 1;

/** Where a partition lives: its leader's broker id (-1 while there is none) and replica brokers. */
export interface TopicPartition {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  /** The in-sync replicas: what acks=all waits for. */
  readonly isr: readonly number[];
}

/**
 * Cluster administration in hookstream's terms: topics, their offsets and settings, consumer
 * groups and their ledgers. Plain data in and out. Calls the broker marks retriable (a group
 * coordinator still loading, a topic not yet on every broker) are retried where noted.
 */
export class KafkaAdmin {
  readonly #admin: Admin;
  readonly #kafka: Kafka;
  readonly #connection: KafkaConnection;
  /** Connections of its own for sampling records and batched group requests, made at first use. */
  #sampler: Promise<InternalCluster> | null = null;
  /** Leaders of the topics partitionEnds is asked about again and again. */
  readonly #leaders = new LeaderCache();
  readonly #groupReads = { batched: 0, single: 0 };

  constructor(connection: KafkaConnection) {
    this.#connection = connection;
    this.#kafka = kafkaOf(connection);
    this.#admin = this.#kafka.admin();
  }

  /**
   * Connects; a refused login or certificate fails at once as a KafkaAccessError naming the
   * setting (a certificate through the connection's TLS check, which kafkajs would retry).
   */
  connect(): Promise<void> {
    return explained(
      async () => {
        await checkTlsOf(this.#connection);
        await this.#admin.connect();
      },
      accessOf(this.#connection, 'connect'),
    );
  }

  async disconnect(): Promise<void> {
    const sampler = this.#sampler;
    this.#sampler = null;
    if (sampler !== null) await sampler.then((c) => c.disconnect()).catch(() => undefined);
    await this.#admin.disconnect();
  }

  /** Every topic's name, internal ones included. */
  listTopics(): Promise<string[]> {
    return listTopicNames(this.#admin);
  }

  topicExists(topic: string): Promise<boolean> {
    return topicExists(this.#admin, topic);
  }

  /** How many brokers answer: bounds the replication factor of topics a tool creates. */
  brokerCount(): Promise<number> {
    return brokerCount(this.#admin);
  }

  /**
   * Creates the topics that do not exist yet and leaves existing ones alone; returns the names
   * it created. Safe from several processes at once.
   */
  ensureTopics(specs: readonly TopicSpec[], wait: LeaderWait = {}): Promise<string[]> {
    return explained(
      () => ensureTopics(this.#admin, specs, wait),
      accessOf(this.#connection, `create topics ${specs.map((t) => t.topic).join(', ')}`),
    );
  }

  /** Deletes topics; topics that do not exist are an error, as Kafka reports them. */
  async deleteTopics(topics: readonly string[]): Promise<void> {
    if (topics.length > 0) await this.#admin.deleteTopics({ topics: [...topics] });
  }

  /** The topic's partitions with leaders and replicas, or null when it does not exist. */
  async topicPartitions(topic: string): Promise<TopicPartition[] | null> {
    if (!(await this.topicExists(topic))) return null;
    const [metadata] = await this.#metadata([topic]);
    return metadata?.partitions ?? null;
  }

  /** How many partitions the topic has, or null when it does not exist. */
  async partitionCount(topic: string): Promise<number | null> {
    return (await this.topicPartitions(topic))?.length ?? null;
  }

  /** Per partition, the earliest (low) and end (high) offsets; null when the topic does not exist. */
  topicOffsets(topic: string): Promise<PartitionRange[] | null> {
    return partitionRanges(this.#admin, topic);
  }

  /**
   * topicOffsets of a topic the caller knows exists (it created or follows it), without listing
   * every topic first: the cheap call for a process that asks often. A missing topic throws.
   */
  existingTopicOffsets(topic: string): Promise<PartitionRange[]> {
    return knownPartitionRanges(this.#admin, topic);
  }

  /**
   * Per partition, the first offset whose record's timestamp is at or after `timestampMs` (the
   * end offset when none is): with the end offsets, how many records arrived since.
   */
  async offsetsAt(topic: string, timestampMs: number): Promise<{ partition: number; offset: string }[]> {
    const offsets = await retryRetriable(() => this.#admin.fetchTopicOffsetsByTimestamp(topic, timestampMs));
    return offsets
      .map((o) => ({ partition: o.partition, offset: o.offset }))
      .sort((a, b) => a.partition - b.partition);
  }

  /**
   * The timestamp of the record at each offset (or the first one after it) and the mean size of
   * the records there: one Fetch per partition leader that never waits, joining no group.
   */
  async recordSamples(
    topic: string,
    positions: readonly { readonly partition: number; readonly offset: number }[],
  ): Promise<RecordSample[]> {
    const access = accessOf(this.#connection, `read topic ${topic}`);
    return explained(async () => {
      const cluster = await this.#cluster();
      try {
        return await sampleRecords(cluster, topic, positions);
      } catch (err) {
        // A leader moved or a broker went: the next sample asks for the metadata again.
        await cluster.refreshMetadata().catch(() => undefined);
        throw err;
      }
    }, access);
  }

  /** The cluster of its own (sampling, batched group requests), connected at its first use. */
  #cluster(): Promise<InternalCluster> {
    if (this.#sampler === null) {
      const cluster = createInternalCluster(this.#kafka);
      const connecting = cluster.connect().then(() => cluster);
      this.#sampler = connecting;
      connecting.catch(() => {
        if (this.#sampler === connecting) this.#sampler = null;
      });
    }
    return this.#sampler;
  }

  /** Records the topic holds (high − low over its partitions), e.g. a DLQ's depth. */
  topicDepth(topic: string): Promise<number> {
    return fetchTopicDepth(this.#admin, topic);
  }

  /**
   * topicDepth of many topics that exist, by name: one metadata refresh and two ListOffsets per
   * leader for all of them, where topicDepth costs that per topic.
   */
  async topicDepths(topics: readonly string[]): Promise<Map<string, number>> {
    if (topics.length === 0) return new Map();
    const cluster = (await this.#cluster()) as unknown as BatchCluster;
    return retryRetriable(() => fetchTopicDepths(cluster, topics));
  }

  /**
   * Each partition's end offset of many topics that exist, by topic: one ListOffsets per leader
   * for all of them, the leaders known from a metadata request of the last minute (LeaderCache).
   */
  partitionEnds(topics: readonly string[]): Promise<Map<string, Map<number, number>>> {
    return this.#offsetsAt(topics, LATEST);
  }

  /**
   * Of many topics that exist, those holding a record written at or after `timestampMs` (by its
   * Kafka timestamp): one ListOffsets per leader for all of them, as partitionEnds.
   */
  async topicsWrittenSince(topics: readonly string[], timestampMs: number): Promise<Set<string>> {
    const offsets = await this.#offsetsAt(topics, Math.max(0, Math.floor(timestampMs)));
    // -1: no record at or after the time in that partition.
    return new Set([...offsets].filter(([, ps]) => [...ps.values()].some((o) => o >= 0)).map(([t]) => t));
  }

  async #offsetsAt(topics: readonly string[], timestamp: number): Promise<Map<string, Map<number, number>>> {
    if (topics.length === 0) return new Map();
    const cluster = (await this.#cluster()) as unknown as BatchCluster;
    return retryRetriable(async () => {
      try {
        return await offsetsAt(cluster, await this.#leaders.of(cluster, topics), timestamp);
      } catch (err) {
        this.#leaders.forget();
        throw err;
      }
    });
  }

  /**
   * The settings of topics known to exist (a listing named them), by topic: one DescribeConfigs
   * for all of them, with no listing of every topic first.
   */
  async existingTopicConfigs(topics: readonly string[]): Promise<Map<string, Record<string, string>>> {
    if (topics.length === 0) return new Map();
    const { resources } = await retryRetriable(() =>
      this.#admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({ type: TOPIC_RESOURCE, name })),
      }),
    );
    return new Map(
      resources.map((r) => [
        r.resourceName,
        Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue])),
      ]),
    );
  }

  /** The topic's settings as the broker reports them (defaults included); null when it does not exist. */
  async topicConfig(topic: string): Promise<Record<string, string> | null> {
    if (!(await this.topicExists(topic))) return null;
    return (await this.existingTopicConfigs([topic])).get(topic) ?? {};
  }

  /**
   * Sets these topic settings, keeping the topic's other overrides: Kafka's AlterConfigs
   * replaces a topic's whole set (what it is not given returns to the broker's default), so the
   * overrides are read first and sent back with the change.
   */
  async alterTopicConfig(topic: string, changes: Readonly<Record<string, string>>): Promise<void> {
    const access = accessOf(this.#connection, `alter the settings of topic ${topic}`);
    await explained(async () => {
      const { resources } = await retryRetriable(() =>
        this.#admin.describeConfigs({
          includeSynonyms: false,
          resources: [{ type: TOPIC_RESOURCE, name: topic }],
        }),
      );
      const kept: Record<string, string> = {};
      for (const entry of resources[0]?.configEntries ?? [])
        if (entry.configSource === DYNAMIC_TOPIC_CONFIG && !entry.readOnly)
          kept[entry.configName] = entry.configValue;
      const config = { ...kept, ...changes };
      await retryRetriable(() =>
        this.#admin.alterConfigs({
          validateOnly: false,
          resources: [
            {
              type: TOPIC_RESOURCE,
              name: topic,
              configEntries: Object.entries(config).map(([name, value]) => ({ name, value })),
            },
          ],
        }),
      );
    }, access);
  }

  /** Group ids that start with `prefix` (e.g. every subscriber's `hookstream.sub.`), sorted. */
  listGroupIds(prefix: string): Promise<string[]> {
    return listGroupIds(this.#admin, prefix);
  }

  /** The group's committed offsets on one topic, per partition. Reading them never joins the group. */
  committedOffsets(groupId: string, topic: string): Promise<CommittedOffset[]> {
    return explained(
      () => fetchCommittedOffsets(this.#admin, groupId, topic),
      accessOf(this.#connection, `describe group ${groupId}`),
    );
  }

  /**
   * committedOffsets of many groups on one topic that exists, by group id: one FindCoordinator
   * and one OffsetFetch per coordinator (Kafka's batched versions, which kafkajs does not send),
   * and the groups those could not answer asked one by one. A group it could not read fails it.
   */
  committedOffsetsOfGroups(
    groupIds: readonly string[],
    topic: string,
  ): Promise<Map<string, CommittedOffset[]>> {
    return explained(
      () =>
        committedOffsetsOfGroups(
          this.#admin,
          async () => fetchGroupsOffsets((await this.#cluster()) as unknown as BatchCluster, groupIds, topic),
          groupIds,
          topic,
          this.#groupReads,
        ),
      accessOf(this.#connection, `describe the groups of topic ${topic}`),
    );
  }

  /**
   * A group's ledger on topics that exist, by topic: its committed offsets and each partition's
   * range, in one round on the batch cluster (group-ledger-read.ts); where that cannot answer,
   * committedOffsets and topicOffsets per topic.
   */
  groupLedger(
    groupId: string,
    topics: readonly string[],
    /** Leaders from the last minute's metadata (LeaderCache), for reads repeated every few seconds. */
    { cachedLeaders = false }: { cachedLeaders?: boolean } = {},
  ): Promise<Map<string, TopicLedger>> {
    return explained(
      async () => {
        if (topics.length === 0) return new Map();
        const batched = await fetchGroupLedger(
          (await this.#cluster()) as unknown as BatchCluster,
          groupId,
          topics,
          cachedLeaders ? (cluster, ts) => this.#leaders.of(cluster, ts) : undefined,
        ).catch(() => {
          // A leader moved, a topic went: the next read asks for the leaders again.
          this.#leaders.forget();
          return null;
        });
        if (batched !== null) return batched;
        const read = await Promise.all(
          topics.map(async (topic) => {
            const [committed, ranges] = await Promise.all([
              fetchCommittedOffsets(this.#admin, groupId, topic),
              partitionRanges(this.#admin, topic),
            ]);
            return [topic, { committed, ranges: ranges ?? [] }] as const;
          }),
        );
        return new Map(read);
      },
      accessOf(this.#connection, `describe group ${groupId}`),
    );
  }

  /** How many groups committedOffsetsOfGroups read in a batch, and how many one by one, so far. */
  groupReads(): { readonly batched: number; readonly single: number } {
    return { ...this.#groupReads };
  }

  /**
   * Commits offsets for a group with no live member (Kafka refuses otherwise). A partition given
   * a `rewind` is committed with it in the commit's metadata, so the fleet marks what it sends
   * again from there (see LedgerRewind).
   */
  commitOffsets(groupId: string, topic: string, partitions: readonly GroupOffsetCommit[]): Promise<void> {
    return explained(
      () => commitGroupOffsets(this.#kafka, groupId, topic, partitions),
      accessOf(this.#connection, `commit offsets of group ${groupId}`),
    );
  }

  /**
   * Deletes the partition's records below `before` (Kafka's DeleteRecords, what retention does):
   * an operator freeing a topic, or a test standing in for retention.
   */
  deleteRecordsBefore(topic: string, partition: number, before: number): Promise<void> {
    return explained(
      () => this.#admin.deleteTopicRecords({ topic, partitions: [{ partition, offset: String(before) }] }),
      accessOf(this.#connection, `delete records of topic ${topic}`),
    );
  }

  /** Deletes groups, best effort: a group that is already gone counts as deleted. */
  deleteGroups(groupIds: readonly string[]): Promise<void> {
    return deleteGroups(this.#admin, groupIds);
  }

  /** Each group's state (Stable, Empty, Dead…) and member count, e.g. to wait until groups joined. */
  groupStates(groupIds: readonly string[]): Promise<GroupState[]> {
    return describeGroupStates(this.#admin, groupIds);
  }

  /** The group's lag on each topic: end offsets against its committed offsets (one groupLedger read; leaders up to a minute old). */
  async groupLag(groupId: string, topics: readonly string[]): Promise<TopicLag[]> {
    const ledger = await this.groupLedger(groupId, topics, { cachedLeaders: true });
    return topics.map((topic) => lagOf(topic, ledger.get(topic) ?? { committed: [], ranges: [] }));
  }

  /** Allows `principal` (e.g. `User:pusher`) what the grants list; needs a principal that may ALTER the cluster. */
  grant(principal: string, grants: readonly AclGrant[]): Promise<void> {
    return explained(
      () => createAcls(this.#admin, principal, grants),
      accessOf(this.#connection, 'create ACLs'),
    );
  }

  async #metadata(names: readonly string[]): Promise<{ name: string; partitions: TopicPartition[] }[]> {
    const { topics } = await this.#admin.fetchTopicMetadata({ topics: [...names] });
    return topics.map((t) => ({
      name: t.name,
      partitions: t.partitions
        .map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
        .sort((a, b) => a.partition - b.partition),
    }));
  }
}
