import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { encodeCommitMetadata } from '../../admin/commit-metadata.ts';
import { explained, explainKafkaError } from '../../connection/access-refusal.ts';
import type { KafkaConnection } from '../../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../../connection/raw-client.ts';
import { rejoinOnOutOfRange } from '../../kafkajs-patches/offset-out-of-range.ts';
import { holdNextRejoin, holdRejoinsOf } from '../../kafkajs-patches/rejoin-barrier.ts';
import { toConsumedRecord } from '../consumed-record.ts';
import { evictMember } from './evict-member.ts';
import type { GroupMember, MemberBatch, MemberListener, PartitionOffset } from './group-member.ts';

export interface KafkajsGroupMemberOptions {
  readonly kafka: KafkaConnection;
  readonly groupId: string;
  /** The events topic: named in an access refusal's message. */
  readonly topic: string;
  readonly maxWaitTimeInMs?: number | undefined;
  readonly fetchMaxBytes?: number | undefined;
  readonly sessionTimeoutMs?: number | undefined;
  readonly partitionsConsumedConcurrently?: number | undefined;
}

const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

/** A kafkajs consumer as a GroupMember: the only place SubscriberConsumer's member meets kafkajs. */
export class KafkajsGroupMember implements GroupMember {
  readonly #options: KafkajsGroupMemberOptions;
  readonly #consumer: Consumer;
  /** Ends this member's claim that its group rejoins on OFFSET_OUT_OF_RANGE (see join). */
  #kafkajsResets: () => void = () => undefined;
  /** Ends the hand-over before rejoins kafkajs starts on its own, under the member's latest id. */
  #ownRejoins: () => void = () => undefined;
  /** The id of the member's latest join: the one a crash leaves behind in the group. */
  #memberId: string | null = null;

  constructor(options: KafkajsGroupMemberOptions) {
    this.#options = options;
    this.#consumer = kafkaOf(options.kafka).consumer({
      groupId: options.groupId,
      maxWaitTimeInMs: options.maxWaitTimeInMs ?? 500,
      ...(options.fetchMaxBytes === undefined
        ? {}
        : { maxBytes: options.fetchMaxBytes, maxBytesPerPartition: options.fetchMaxBytes }),
      sessionTimeout: options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
      // Short heartbeats keep rebalances quick when an instance joins or leaves.
      heartbeatInterval: 3000,
      // read_committed (kafkajs's default, said here because replays rest on it): a replay
      // writes tier 1 in transactions, and an aborted one must never be delivered.
      readUncommitted: false,
    });
  }

  async join(topics: readonly string[], listener: MemberListener): Promise<void> {
    const { kafka, groupId, topic } = this.#options;
    const consumer = this.#consumer;
    const { CRASH, FETCH, GROUP_JOIN, REBALANCING } = consumer.events;
    consumer.on(CRASH, ({ payload }) => {
      const action = `read topic ${topic} as group ${groupId}`;
      const explainedError = explainKafkaError(payload.error, accessOf(kafka, action)) ?? payload.error;
      listener.crashed({ error: payload.error, explained: explainedError, restart: payload.restart });
      // kafkajs rejoins as a new member; the old one, if its leave did not get through (the
      // coordinator was what failed), would hold that join until its session timed out.
      const dead = this.#memberId;
      this.#memberId = null;
      if (payload.restart && dead !== null) void this.#evict(dead, listener);
    });
    consumer.on(GROUP_JOIN, ({ payload }) => {
      // Registered before the listener hears of the join: a rejoin kafkajs starts from the next
      // fetch (stale metadata) hands over the lanes this join is about to start.
      this.#ownRejoins();
      this.#ownRejoins = holdRejoinsOf(payload.memberId, () => listener.rebalancing('rejoin'));
      this.#memberId = payload.memberId;
      listener.joined(payload.memberAssignment);
    });
    // kafkajs rejoins in the same tick as it emits this: the barrier holds that rejoin.
    consumer.on(REBALANCING, () => holdNextRejoin(listener.rebalancing('rebalance')));
    // A fetch below the log start rejoins, so the join records the gap (kafkajs-patches).
    this.#kafkajsResets = rejoinOnOutOfRange(groupId);
    await explained(() => consumer.connect(), accessOf(kafka, 'connect'));
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    const removeFetch = consumer.on(FETCH, () => {
      removeFetch();
      listener.firstFetch();
    });
    // The ledger is committed explicitly (the settled prefix only); kafkajs's own commits would
    // commit whatever was resolved, and a lane resolves records as soon as it takes them.
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.#options.partitionsConsumedConcurrently ?? 4,
      eachBatch: async (payload) => listener.batch(memberBatch(payload)),
    });
  }

  async #evict(memberId: string, listener: MemberListener): Promise<void> {
    const startedAt = Date.now();
    const outcome = await evictMember({
      kafka: this.#options.kafka,
      groupId: this.#options.groupId,
      memberId,
      withinMs: this.#options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS,
    }).catch(() => 'timed-out' as const);
    listener.evicted?.({ memberId, outcome, ms: Date.now() - startedAt });
  }

  pause(topic: string, partitions: readonly number[]): void {
    this.#consumer.pause([{ topic, partitions: [...partitions] }]);
  }

  resume(topic: string, partitions: readonly number[]): void {
    this.#consumer.resume([{ topic, partitions: [...partitions] }]);
  }

  seek(topic: string, partition: number, offset: number): void {
    this.#consumer.seek({ topic, partition, offset: String(offset) });
  }

  /**
   * Each commit carries its time as metadata (a gap found later says when the ledger last moved),
   * its `openSince` and the rewind it is still in (commit-metadata.ts).
   */
  commit(offsets: readonly PartitionOffset[]): Promise<void> {
    const now = Date.now();
    return this.#consumer.commitOffsets(
      offsets.map(({ topic, partition, offset, openSinceMs, rewind }) => ({
        topic,
        partition,
        offset: String(offset),
        metadata: encodeCommitMetadata(now, { openSinceMs: openSinceMs ?? null, rewind: rewind ?? null }),
      })),
    );
  }

  async leave(): Promise<void> {
    try {
      await this.#consumer.disconnect();
    } finally {
      this.#kafkajsResets();
      this.#ownRejoins();
    }
  }
}

function memberBatch({ batch, resolveOffset, isRunning, isStale }: EachBatchPayload): MemberBatch {
  const { topic, partition, messages } = batch;
  return {
    topic,
    partition,
    size: messages.length,
    record: (index) => toConsumedRecord(topic, partition, messages[index] as KafkaMessage),
    resolve: (record) => resolveOffset(record.offset),
    current: () => isRunning() && !isStale(),
  };
}
