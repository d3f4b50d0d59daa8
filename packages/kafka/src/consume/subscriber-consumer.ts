import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { KafkaAdmin } from '../admin/kafka-admin.ts';
import { explained, explainKafkaError } from '../connection/access-refusal.ts';
import type { KafkaConnection } from '../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../connection/raw-client.ts';
import type { LogFn } from '../log.ts';
import { type ConsumedRecord, toConsumedRecord } from './consumed-record.ts';
import { prepareStart, type StartedFrom, type StartFrom } from './group/start-position.ts';
import { EventsLane, type LaneMode, type LaneOwner } from './lanes/events-lane.ts';
import { TierLane } from './lanes/tier-lane.ts';
import { mergeSettled, type SettledOffsets } from './ledger/settled-offsets.ts';
import type { RecordHandler } from './record-handler.ts';
import type { EventsTap } from './tap/events-tap.ts';

export interface SubscriberConsumerOptions {
  readonly kafka: KafkaConnection;
  readonly groupId: string;
  /** The events topic; its start position is prepared for a brand-new group. */
  readonly topic: string;
  /**
   * More topics the same group reads (a subscriber's retry tiers), from their beginning when the
   * group has no ledger entry for them yet.
   */
  readonly extraTopics?: readonly string[];
  /**
   * When a record of a retry tier may be handed over (ms since epoch), or null for at once. Each
   * waits in its tier's lane on a timer, so waiting never holds a fetch.
   */
  readonly dueAtMs?: (record: ConsumedRecord) => number | null;
  readonly start: StartFrom;
  /** `key`: at most one record per key in flight, so one key's records settle in order. */
  readonly ordering: 'none' | 'key';
  /** Records of one partition in flight at once. */
  readonly maxInFlightPerPartition: number;
  readonly partitionsConsumedConcurrently?: number;
  readonly handle: RecordHandler;
  readonly log: LogFn;
  /** Called when kafkajs gives up (a crash it will not restart from); the process should exit. */
  readonly onFatal: (error: Error) => void;
  /** How long a fetch waits for data; small keeps latency low when partitions are idle. */
  readonly maxWaitTimeInMs?: number;
  /**
   * At most this many bytes per fetch response (kafkajs default 10 MiB, 1 MiB per partition).
   * Every group holds its own fetched batches, so a process with many groups bounds this.
   */
  readonly fetchMaxBytes?: number | undefined;
  readonly sessionTimeoutMs?: number;
  /**
   * The process's shared fetch of the events topic: while this subscriber keeps up, its own
   * fetch of the events topic stays paused and the tap hands it its records. Without one, the
   * group member fetches everything itself.
   */
  readonly tap?: EventsTap | null;
  /** Event types the subscriber wants (`*`: all); other records are passed over undecoded. */
  readonly eventTypes?: readonly string[];
  /** A connected admin shared by the process, for the ledger's offsets at every join; else one of its own each time. */
  readonly admin?: KafkaAdmin;
  /**
   * What an earlier consumer of the group in this process settled and may not have committed
   * (`settledOffsets()` after its drain), by `topic:partition`: passed over, not delivered again.
   */
  readonly settled?: ReadonlyMap<string, SettledOffsets>;
}

/** Settled records reach the committed ledger within about this long. */
const COMMIT_EVERY_MS = 1000;
/** A ledger moved only by passed-over records (other types) is committed this rarely. */
const QUIET_COMMIT_MS = 10_000;
/** A stop's last commit waits at most this long (kafkajs retries a failing commit for seconds). */
const FINAL_COMMIT_MS = 5000;
/** A retry-tier lane holds at least this many records waiting for their due time (or in flight). */
const TIER_CAPACITY_MIN = 512;
/** Reads of the ledger at a join, a second apart, before the member gives up. */
const LEDGER_READS = 3;

/**
 * One subscriber's consumer group: its committed offsets are the subscriber's ledger, and the
 * group protocol shares its partitions among the instances running it. Each events-topic
 * partition it holds is an EventsLane, fed by the process's tap while it keeps up and by this
 * member's own fetch otherwise; retry tiers are fetched by the member itself. Records run
 * concurrently (or one per key), and the ledger only ever moves over the contiguous settled
 * prefix, so a crash at any moment can cause redelivery but never loss.
 */
export class SubscriberConsumer {
  readonly #options: SubscriberConsumerOptions;
  readonly #consumer: Consumer;
  readonly #types: ReadonlySet<string> | null;
  /** The events-topic partitions this member holds, from its latest assignment. */
  #lanes = new Map<number, EventsLane>();
  /** Lanes of earlier assignments whose records have not all ended yet. */
  readonly #revoked = new Set<EventsLane | TierLane>();
  /** Bumped at every join, so an assignment still being set up after the next one is dropped. */
  #generation = 0;
  #assigned: Promise<void> = Promise.resolve();
  /** Retry-tier partitions this member holds (`topic:partition`), made at their first batch. */
  #tiers = new Map<string, TierLane>();
  /** From `options.settled`, until a lane of the partition takes it. */
  readonly #inherited: Map<string, SettledOffsets>;
  #commitTimer: NodeJS.Timeout | undefined;
  #committing: Promise<void> | null = null;
  #stopping = false;
  /** Rejects start() while it waits for the first fetch. */
  #startFailed: ((error: Error) => void) | null = null;
  #draining = false;
  readonly #owner: LaneOwner;

  constructor(options: SubscriberConsumerOptions) {
    this.#options = options;
    this.#inherited = new Map(options.settled ?? []);
    const types = options.eventTypes ?? ['*'];
    this.#types = types.includes('*') ? null : new Set(types);
    this.#consumer = kafkaOf(options.kafka).consumer({
      groupId: options.groupId,
      maxWaitTimeInMs: options.maxWaitTimeInMs ?? 500,
      ...(options.fetchMaxBytes === undefined
        ? {}
        : { maxBytes: options.fetchMaxBytes, maxBytesPerPartition: options.fetchMaxBytes }),
      sessionTimeout: options.sessionTimeoutMs ?? 30_000,
      // Short heartbeats keep rebalances quick when an instance joins or leaves.
      heartbeatInterval: 3000,
    });
    const topic = options.topic;
    // kafkajs refuses seek/pause/resume while it restarts a crashed member: the lanes then stop
    // (the next join makes new ones) rather than let an error escape into the tap's dispatch.
    this.#owner = {
      readOwn: (partition, offset) => {
        if (this.#stopping) return;
        try {
          this.#consumer.seek({ topic, partition, offset: String(offset) });
          this.#consumer.resume([{ topic, partitions: [partition] }]);
        } catch (err) {
          this.#lost('could not read a partition itself', err);
        }
      },
      pauseOwn: (partition) => {
        try {
          this.#consumer.pause([{ topic, partitions: [partition] }]);
        } catch {
          // Not running: it fetches nothing anyway.
        }
      },
    };
    const { CRASH, GROUP_JOIN, REBALANCING } = this.#consumer.events;
    this.#consumer.on(CRASH, ({ payload }) => {
      options.log('error', 'consumer crashed', { error: payload.error.message, restart: payload.restart });
      // Restarted or not, the member leaves the group: its partitions may go elsewhere.
      this.#revoke();
      if (payload.restart) return;
      const action = `read topic ${options.topic} as group ${options.groupId}`;
      const error = explainKafkaError(payload.error, accessOf(options.kafka, action)) ?? payload.error;
      this.#startFailed?.(error);
      options.onFatal(error);
    });
    this.#consumer.on(GROUP_JOIN, ({ payload }) => {
      options.log('info', 'joined group', { groupId: payload.groupId, assignment: payload.memberAssignment });
      this.#assign(payload.memberAssignment);
    });
    this.#consumer.on(REBALANCING, () => {
      this.#revoke();
      options.log('info', 'group is rebalancing');
    });
  }

  /**
   * Per topic, the Kafka timestamp (ms) of the oldest record this instance holds unsettled: in
   * flight, or waiting in a tier until due. Topics with none are absent.
   */
  oldestUnsettled(): Map<string, number> {
    const oldest = new Map<string, number>();
    const note = (topic: string, ts: number) => {
      const seen = oldest.get(topic);
      if (seen === undefined || ts < seen) oldest.set(topic, ts);
    };
    for (const lane of this.#lanes.values()) {
      const ts = lane.oldestUnsettled();
      if (ts !== null) note(this.#options.topic, ts);
    }
    for (const tier of this.#tiers.values()) {
      const ts = tier.oldestUnsettled();
      if (ts !== null) note(tier.topic, ts);
    }
    return oldest;
  }

  /**
   * Where each events partition this member holds gets its records: `riding` the process's
   * tap, its `own` fetch, or `held` (stopping).
   */
  laneModes(): Map<number, LaneMode> {
    return new Map([...this.#lanes].map(([partition, lane]) => [partition, lane.mode]));
  }

  /** Joins the group (after positioning a brand-new one) and starts consuming. */
  async start(): Promise<StartedFrom> {
    const { kafka, groupId, topic, start } = this.#options;
    const admin = kafkaOf(kafka).admin();
    await explained(() => admin.connect(), accessOf(kafka, 'connect'));
    let startedFrom: StartedFrom;
    try {
      startedFrom = await prepareStart(kafkaOf(kafka), admin, groupId, topic, start);
    } finally {
      await admin.disconnect();
    }
    await explained(() => this.#consumer.connect(), accessOf(kafka, 'connect'));
    // Only partitions without a ledger entry use this: those added after the group began.
    await this.#consumer.subscribe({
      topics: [topic, ...(this.#options.extraTopics ?? [])],
      fromBeginning: true,
    });
    // The first completed fetch means the group was joined and every partition's position
    // resolved: from here on a 'latest' subscriber sees everything produced.
    // A crash before then (a missing ACL, say) fails start() instead of leaving it waiting.
    const fetched = new Promise<void>((resolve, reject) => {
      this.#startFailed = reject;
      const remove = this.#consumer.on(this.#consumer.events.FETCH, () => {
        remove();
        resolve();
      });
    });
    // The ledger is committed explicitly (the settled prefix only); kafkajs's own commits would
    // commit whatever was resolved, and a lane resolves records as soon as it begins them.
    await this.#consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.#options.partitionsConsumedConcurrently ?? 4,
      eachBatch: async (payload) => this.#eachBatch(payload),
    });
    try {
      await fetched;
      await this.#assigned;
    } finally {
      this.#startFailed = null;
    }
    this.#commitTimer = setInterval(() => void this.#commit(false), COMMIT_EVERY_MS);
    this.#commitTimer.unref();
    return startedFrom;
  }

  /**
   * Stops taking work, abandons waits (in-flight HTTP attempts finish within their timeout),
   * commits the settled prefix and leaves the group.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#draining = true;
    clearInterval(this.#commitTimer);
    for (const lane of this.#lanes.values()) lane.hold(true);
    for (const tier of this.#tiers.values()) tier.hold(true);
    await this.#settle();
    await Promise.race([this.#commit(true), sleep(FINAL_COMMIT_MS)]);
    await this.#consumer.disconnect();
  }

  /**
   * Starts no more records, abandons those still waiting for their turn (limiter, breaker: no
   * attempt made, so nothing is repeated when they are fetched again) and waits until every
   * attempt in flight has ended and its outcome is written: for leaving the group to rejoin it
   * with other topics. A window of records waiting behind a slow endpoint does not hold the rejoin.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    for (const lane of this.#lanes.values()) lane.hold(true);
    for (const tier of this.#tiers.values()) tier.hold(true);
    await this.#settle();
  }

  /** Waits until no lane has a record in flight (batches never wait: they only hand records over). */
  async #settle(): Promise<void> {
    const lanes = [...this.#lanes.values(), ...this.#tiers.values(), ...this.#revoked];
    await Promise.all(lanes.map((lane) => lane.idle()));
  }

  /**
   * A new assignment: every partition starts paused, then each becomes a lane at the group's
   * committed offset (a partition without one: its earliest), or past what the consumer before
   * this one settled. Events lanes ride the tap when it has seen that far; tier lanes read from an
   * explicit seek. Lanes of the previous assignment end first, so a record still in flight there
   * is never begun again beside itself, and no lane trusts kafkajs's fetch position: it moves
   * past records a lane took and had not settled.
   */
  #assign(assignment: Readonly<Record<string, readonly number[]>>): void {
    const generation = ++this.#generation;
    this.#revoke();
    const held = Object.entries(assignment).filter(([, partitions]) => partitions.length > 0);
    if (held.length === 0) return;
    this.#consumer.pause(held.map(([topic, partitions]) => ({ topic, partitions: [...partitions] })));
    const revoked = [...this.#revoked];
    this.#assigned = (async () => {
      await Promise.all(revoked.map((lane) => lane.idle()));
      const ledgers = await this.#ledgers(held.map(([topic]) => topic));
      if (generation !== this.#generation || this.#stopping || this.#draining) return;
      if (ledgers === null) {
        this.#options.onFatal(new Error(`could not read the ledger of group ${this.#options.groupId}`));
        return;
      }
      for (const [topic, partitions] of held)
        for (const partition of partitions) {
          const ledger = ledgers.get(topic)?.get(partition) ?? 0;
          const settled = this.#inheritedFor(topic, partition);
          if (topic === this.#options.topic) this.#startEventsLane(partition, ledger, settled);
          else this.#startTierLane(topic, partition, ledger, settled);
        }
    })().catch((err: unknown) => this.#lost('could not set up the assignment', err));
  }

  #startEventsLane(partition: number, ledger: number, settled: SettledOffsets | null): void {
    const lane = new EventsLane({
      topic: this.#options.topic,
      partition,
      ledger,
      settled,
      tap: this.#options.tap ?? null,
      owner: this.#owner,
      handle: this.#options.handle,
      ordering: this.#options.ordering,
      window: this.#options.maxInFlightPerPartition,
      types: this.#types,
      log: this.#options.log,
    });
    this.#lanes.set(partition, lane);
    lane.start();
  }

  #startTierLane(topic: string, partition: number, ledger: number, settled: SettledOffsets | null): void {
    const lane = new TierLane({
      topic,
      partition,
      ledger,
      settled,
      dueAtMs: this.#options.dueAtMs ?? (() => null),
      handle: this.#options.handle,
      ordering: this.#options.ordering,
      window: this.#options.maxInFlightPerPartition,
      capacity: Math.max(TIER_CAPACITY_MIN, this.#options.maxInFlightPerPartition * 4),
      fetch: {
        pause: () => this.#pauseFetch(topic, partition),
        resume: () => this.#resumeFetch(topic, partition),
      },
      log: this.#options.log,
    });
    this.#tiers.set(`${topic}:${partition}`, lane);
    this.#consumer.seek({ topic, partition, offset: String(lane.from) });
    this.#consumer.resume([{ topic, partitions: [partition] }]);
  }

  /**
   * Per topic and partition, the committed offset, or the earliest offset where the group has
   * none; null: unreadable.
   */
  async #ledgers(topics: readonly string[]): Promise<Map<string, Map<number, number>> | null> {
    const { groupId, kafka } = this.#options;
    for (let attempt = 1; attempt <= LEDGER_READS; attempt++) {
      const own = this.#options.admin ? null : kafka.admin();
      const admin = this.#options.admin ?? own;
      try {
        if (own) await own.connect();
        if (!admin) return null;
        const read = await Promise.all(
          topics.map(async (topic) => {
            const [committed, ranges] = await Promise.all([
              admin.committedOffsets(groupId, topic),
              admin.topicOffsets(topic),
            ]);
            const starts = new Map<number, number>();
            for (const r of ranges ?? []) starts.set(r.partition, Number(r.low));
            for (const c of committed) if (c.offset !== null) starts.set(c.partition, Number(c.offset));
            return [topic, starts] as const;
          }),
        );
        return new Map(read);
      } catch (err) {
        this.#options.log('warn', 'could not read the ledger; trying again', {
          attempt,
          error: err instanceof Error ? err.message : String(err),
        });
        if (attempt < LEDGER_READS) await sleep(1000);
      } finally {
        await own?.disconnect().catch(() => undefined);
      }
    }
    return null;
  }

  /** The partitions may move: every lane stops and abandons its waits; nothing more is committed for them. */
  #revoke(): void {
    for (const lane of [...this.#lanes.values(), ...this.#tiers.values()]) {
      lane.hold(true);
      this.#revoked.add(lane);
      void lane.idle().then(() => this.#revoked.delete(lane));
    }
    this.#lanes = new Map();
    this.#tiers = new Map();
  }

  /**
   * What the consumer before this one settled of the partition (`options.settled`), once. Lanes
   * of an earlier assignment of this consumer pass on nothing: a rebalance starts from the
   * ledger, as every other member of the group does.
   */
  #inheritedFor(topic: string, partition: number): SettledOffsets | null {
    const key = `${topic}:${partition}`;
    const settled = this.#inherited.get(key) ?? null;
    this.#inherited.delete(key);
    return settled;
  }

  /** What the lanes settled, by `topic:partition`; after drain(), for the consumer that follows. */
  settledOffsets(): Map<string, SettledOffsets> {
    const settled = new Map(this.#inherited);
    for (const lane of this.#lanes.values()) {
      const key = `${this.#options.topic}:${lane.partition}`;
      const s = mergeSettled(settled.get(key) ?? null, lane.settled());
      if (s) settled.set(key, s);
    }
    for (const [key, tier] of this.#tiers) {
      const s = mergeSettled(settled.get(key) ?? null, tier.settled());
      if (s) settled.set(key, s);
    }
    return settled;
  }

  /** The member cannot go on with its lanes; the next join (or a restart) makes new ones. */
  #lost(what: string, err: unknown): void {
    this.#options.log('warn', `${what}; its lanes stop until the group is joined again`, {
      error: err instanceof Error ? err.message : String(err),
    });
    this.#revoke();
  }

  /** Commits each partition's settled prefix that moved; `final`: everything that moved. */
  #commit(final: boolean): Promise<void> {
    if (this.#committing !== null)
      return final ? this.#committing.then(() => this.#commit(true)) : this.#committing;
    const now = Date.now();
    const lanes = [...this.#lanes.values()];
    const offsets: { topic: string; partition: number; offset: string; done: () => void }[] = [];
    for (const lane of lanes) {
      const next = lane.commitDue(now, final ? 0 : QUIET_COMMIT_MS);
      if (next !== null)
        offsets.push({
          topic: this.#options.topic,
          partition: lane.partition,
          offset: String(next),
          done: () => lane.committed(next, now),
        });
    }
    for (const tier of this.#tiers.values()) {
      const next = tier.commitDue(now);
      if (next !== null)
        offsets.push({
          topic: tier.topic,
          partition: tier.partition,
          offset: String(next),
          done: () => tier.committed(next, now),
        });
    }
    if (offsets.length === 0) return Promise.resolve();
    const generation = this.#generation;
    this.#committing = this.#consumer
      .commitOffsets(offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset })))
      .then(() => {
        if (generation === this.#generation) for (const o of offsets) o.done();
      })
      .catch((err: unknown) =>
        // The group is rebalancing or Kafka is away: the next commit tries again.
        this.#options.log('debug', 'commit failed; trying again', {
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        this.#committing = null;
      });
    return this.#committing;
  }

  #eachBatch(payload: EachBatchPayload): void {
    const { batch, resolveOffset, isRunning, isStale } = payload;
    if (batch.topic === this.#options.topic) {
      this.#eachEventsBatch(payload);
      return;
    }
    // No lane: the assignment is being set up (its partitions are paused and seeked when their
    // lanes start) or was lost; nothing is taken.
    const tier = this.#tiers.get(`${batch.topic}:${batch.partition}`);
    if (tier === undefined || !isRunning() || isStale()) return;
    for (const message of batch.messages) {
      if (this.#stopping || this.#draining) return;
      if (tier.offer(toConsumedRecord(batch.topic, batch.partition, message)) !== 'taken') return;
      resolveOffset(message.offset);
    }
  }

  #pauseFetch(topic: string, partition: number): void {
    try {
      this.#consumer.pause([{ topic, partitions: [partition] }]);
    } catch {
      // Not running: it fetches nothing anyway.
    }
  }

  #resumeFetch(topic: string, partition: number): void {
    try {
      this.#consumer.resume([{ topic, partitions: [partition] }]);
    } catch {
      // Not running: the next run starts unpaused.
    }
  }

  /**
   * The member's own fetch of an events partition (its lane fell behind, or has no tap): records
   * are begun (or passed over) and resolved at once, so the next fetch does not wait for their
   * deliveries; the batch ends early when the lane can ride the tap again or its window is full.
   * Nothing here waits: kafkajs fetches again only once every batch of a fetch has returned.
   */
  #eachEventsBatch(payload: EachBatchPayload): void {
    const { batch, resolveOffset, isRunning, isStale } = payload;
    const lane = this.#lanes.get(batch.partition);
    if (lane === undefined || lane.mode !== 'own') return;
    try {
      for (const message of batch.messages) {
        if (this.#stopping || this.#draining || !isRunning() || isStale()) break;
        const record = toConsumedRecord(batch.topic, batch.partition, message);
        if (lane.fromOwnFetch(record) === 'stop') break;
        resolveOffset(message.offset);
      }
    } finally {
      lane.afterOwnBatch();
    }
  }
}
