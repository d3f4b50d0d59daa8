import {
  ATTEMPT_LOG_TOPIC,
  type KafkaSettings,
  type LogFn,
  type RegistrySettings,
} from '@hookstream/contracts';
import {
  createInFlightCap,
  type EgressProxy,
  type InFlightCap,
  OriginPools,
  RedisConnections,
} from '@hookstream/delivery';
import {
  createKafka,
  type KafkaAdmin,
  type KafkaConnection,
  RecordSender,
  type TopicSpec,
} from '@hookstream/kafka';
import { type EventProducer, RegistryHttp, startNoticeProducer } from '@hookstream/producer';
import type { Meter } from '@opentelemetry/api';
import { AttemptLogWriter } from './attempt-log-writer.ts';
import { EndOffsetWatch } from './consume/end-offset-watch.ts';
import { MemoryBudget } from './consume/memory-budget.ts';
import { EventsTap } from './consume/tap/events-tap.ts';
import { PusherError } from './errors.ts';
import { AvroEventDecoder, type EventDecoder } from './event-decoder.ts';
import { PusherMetrics } from './pusher-metrics.ts';
import { RegistrySchemaSource } from './schema-source.ts';
import { TopicCreations } from './topic-creations.ts';

export interface PusherResourcesSettings {
  /** Brokers, TLS and SASL, as loadConnectionSettings() made them. */
  readonly kafka: KafkaSettings;
  /** The schema registry and its credentials; records are decoded by the ids they carry. */
  readonly registry: RegistrySettings;
  /** Names the process to the broker (client id). */
  readonly clientId: string;
  /** The process's log (subscriber-free lines: connections, shared writers). */
  readonly log: LogFn;
  /** Requests in flight across the whole process (default 1000). */
  readonly inFlightCap?: InFlightCap;
  /** Replication factor of the topics the process creates (default 1, the local single broker). */
  readonly replicationFactor?: number;
  /**
   * Redis URL (redis://[:password@]host:port, or rediss://) shared by all instances of a subscriber: the destination's
   * rate, concurrency and 429 pauses then hold across them. Unset: limits are per process.
   */
  readonly limiterRedisUrl?: string | undefined;
  readonly decoder?: EventDecoder;
  /** Partitions of each subscriber's tiers and DLQ (default: as many as the events topic). */
  readonly tierPartitions?: number | undefined;
  /**
   * How long a fetch waits for records (default 100 ms). An idle group costs a fetch per wait,
   * so a fleet of many groups wants it longer; new events still arrive at once (a fetch returns
   * as soon as there is data), but a tier partition that becomes due waits for the current fetch.
   */
  readonly fetchWaitMs?: number | undefined;
  /**
   * Bytes one group's fetch may bring back (default: kafkajs's 10 MiB). Each group holds its own
   * batches, so a fleet of a thousand groups at the default could hold gigabytes at once.
   */
  readonly fetchMaxBytes?: number | undefined;
  /**
   * Bytes of records the process keeps while they wait (default DEFAULT_MEMORY_BUDGET_MB MiB),
   * shared by the tap's recent records, the events lanes' queues and the tier lanes; when full,
   * fetching pauses (docs/operations.md, "Memory").
   */
  readonly memoryBudgetBytes?: number | undefined;
  /** Every delivery of the process goes through this proxy (HOOKSTREAM_EGRESS_PROXY); absent: direct. */
  readonly egressProxy?: EgressProxy | null | undefined;
  /** Instruments go here (lag, ages, outcomes, latencies); no metrics without one. */
  readonly meter?: Meter;
  /**
   * One fetch of each events topic for all the process's subscribers (an EventsTap), instead of
   * one per subscriber: what lets a fleet of many subscribers cost one stream of records.
   */
  readonly sharedFetch?: boolean;
}

/** The memory budget's default: fits the chart's 768 MiB pod limit with room for the rest of the process. */
export const DEFAULT_MEMORY_BUDGET_MB = 256;

/** How often a missing topic is looked for again (another instance may have created it). */
const LIST_EVERY_MS = 5000;

const ATTEMPT_LOG_RETENTION_MS = 7 * 86_400_000;

/**
 * Shared by every subscriber and created by whichever pusher starts first, so its partition
 * count is fixed rather than copied from one subscriber's events topic. Kept a week.
 */
const ATTEMPT_LOG_SPEC = {
  topic: ATTEMPT_LOG_TOPIC,
  partitions: 6,
  config: { 'retention.ms': String(ATTEMPT_LOG_RETENTION_MS), 'cleanup.policy': 'delete' },
};

/**
 * What every subscriber of one pusher process shares: one Kafka client, admin connection and
 * producer, the attempt-log writer, the record decoder (and its schema cache), the in-flight cap
 * and the metric instruments. A fleet of many subscribers costs these once.
 */
export class PusherResources {
  readonly kafka: KafkaConnection;
  readonly admin: KafkaAdmin;
  readonly sender: RecordSender;
  readonly attemptLog: AttemptLogWriter;
  readonly decoder: EventDecoder;
  readonly inFlightCap: InFlightCap;
  /** Keep-alive pools per destination origin, shared by every subscriber of the process. */
  readonly httpPools: OriginPools;
  readonly metrics: PusherMetrics | undefined;
  readonly replicationFactor: number;
  /** The Redis connections every destination's shared limits and breaker use; null: no Redis. */
  readonly redis: RedisConnections | null;
  readonly tierPartitions: number | undefined;
  readonly fetchWaitMs: number;
  readonly fetchMaxBytes: number | undefined;
  /** One budget for every record the process keeps while it waits. */
  readonly memoryBudget: MemoryBudget;
  /**
   * Wakes the retry tiers' lanes that sleep while their tier holds nothing to read. It looks as
   * often as an idle fetch would wait (at least every 250 ms): a tier's first record after a join
   * is read at most that much later.
   */
  readonly endWatch: EndOffsetWatch;
  readonly log: LogFn;
  readonly #settings: PusherResourcesSettings;
  /** The producer of operational notices, per events topic's notices topic; started at the first notice. */
  readonly #notices = new Map<string, Promise<EventProducer>>();
  readonly #partitions = new Map<string, number>();
  readonly #taps = new Map<string, Promise<EventsTap | null>>();
  /** Topics known to exist; a miss asks the broker again (topics are never deleted under us). */
  #topics: Set<string> | null = null;
  /** #topics in order, for prefix look-ups; null until asked after a change. */
  #sortedTopics: string[] | null = null;
  #listedAtMs = 0;
  #listing: Promise<Set<string>> | null = null;
  readonly #stopMemoryGauges: (() => void) | undefined;
  readonly #creations: TopicCreations;

  private constructor(settings: PusherResourcesSettings, kafka: KafkaConnection) {
    this.#settings = settings;
    this.kafka = kafka;
    this.admin = kafka.admin();
    this.sender = new RecordSender(kafka);
    this.attemptLog = new AttemptLogWriter(this.sender, settings.log);
    this.httpPools = new OriginPools(settings.egressProxy ?? null);
    this.decoder =
      settings.decoder ?? new AvroEventDecoder(new RegistrySchemaSource(new RegistryHttp(settings.registry)));
    this.inFlightCap = settings.inFlightCap ?? createInFlightCap(1000);
    this.metrics = settings.meter ? new PusherMetrics(settings.meter) : undefined;
    this.replicationFactor = settings.replicationFactor ?? 1;
    this.redis = settings.limiterRedisUrl ? new RedisConnections(settings.limiterRedisUrl) : null;
    this.tierPartitions = settings.tierPartitions;
    this.fetchWaitMs = settings.fetchWaitMs ?? 100;
    this.fetchMaxBytes = settings.fetchMaxBytes;
    this.memoryBudget = new MemoryBudget(
      settings.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET_MB * 1024 * 1024,
    );
    this.#stopMemoryGauges = this.metrics?.observeMemory(this.memoryBudget);
    this.#creations = new TopicCreations((specs) => this.admin.ensureTopics(specs));
    this.endWatch = new EndOffsetWatch({
      ends: (topics) => this.admin.partitionEnds(topics),
      everyMs: Math.max(250, this.fetchWaitMs),
      log: settings.log,
    });
    this.log = settings.log;
  }

  /** Connects the shared clients and ensures the shared attempt-log topic. */
  static async open(settings: PusherResourcesSettings): Promise<PusherResources> {
    const kafka = createKafka({ ...settings.kafka, clientId: settings.clientId });
    const resources = new PusherResources(settings, kafka);
    try {
      await resources.admin.connect();
      await resources.sender.connect();
      await resources.admin.ensureTopics([
        { ...ATTEMPT_LOG_SPEC, replicationFactor: resources.replicationFactor },
      ]);
      // Batch records are placed by the topic's count, which another pusher may have chosen.
      const partitions = await resources.admin.partitionCount(ATTEMPT_LOG_TOPIC);
      if (partitions !== null && partitions > 0) resources.attemptLog.useBatchRecords(partitions);
    } catch (err) {
      await resources.close();
      throw err;
    }
    return resources;
  }

  /** The events topic's partition count, asked once per topic; its tiers and DLQ get as many. */
  async eventsPartitions(topic: string): Promise<number> {
    const known = this.#partitions.get(topic);
    if (known !== undefined) return known;
    try {
      const count = (await this.admin.partitionCount(topic)) ?? 0;
      if (count > 0) {
        this.#partitions.set(topic, count);
        return count;
      }
    } catch {
      // Reported below: the cause is almost always a topic that does not exist yet.
    }
    throw new PusherError(
      'NO_EVENTS_TOPIC',
      `the events topic "${topic}" does not exist (the ingress creates it; auto-creation is off), or this principal may not DESCRIBE it (docs/security.md, "ACLs")`,
      true,
    );
  }

  /** Creates what is missing; returns the names it created. */
  async ensureTopics(specs: readonly TopicSpec[]): Promise<string[]> {
    const created = await this.#creations.ensure(specs);
    for (const spec of specs) {
      if (this.#topics?.has(spec.topic) === false) this.#sortedTopics = null;
      this.#topics?.add(spec.topic);
    }
    return created;
  }

  /**
   * Whether all these topics exist. One listing serves every subscriber of the process, and a
   * miss asks the broker again at most every few seconds, however many subscribers ask.
   */
  async topicsExist(topics: readonly string[]): Promise<boolean> {
    const known = await this.#knownTopics(topics);
    return topics.every((t) => known.has(t));
  }

  /** The topics whose names start with `prefix`, from the same shared listing as topicsExist. */
  async topicsNamed(prefix: string, wanted: readonly string[]): Promise<string[]> {
    const known = await this.#knownTopics(wanted);
    // A fleet's thousand subscribers each ask at their start, of a listing of six topics each:
    // a scan of the whole listing per ask grew with the square of the fleet.
    this.#sortedTopics ??= [...known].sort();
    return namesStartingWith(this.#sortedTopics, prefix);
  }

  /** The listing, asked again when one of `wanted` is missing and the last one is a few seconds old. */
  async #knownTopics(wanted: readonly string[]): Promise<ReadonlySet<string>> {
    const cached = this.#topics;
    if (
      cached !== null &&
      (wanted.every((t) => cached.has(t)) || Date.now() - this.#listedAtMs < LIST_EVERY_MS)
    )
      return cached;
    this.#listing ??= this.admin
      .listTopics()
      .then((names) => {
        this.#topics = new Set(names);
        this.#sortedTopics = null;
        this.#listedAtMs = Date.now();
        return this.#topics;
      })
      .finally(() => {
        this.#listing = null;
      });
    return this.#listing;
  }

  /**
   * The ingress producer library on its notice channel, publishing operational events
   * (subscriber.disabled) onto the events topic's notices topic: validated, Avro in the
   * registry's format, CloudEvents headers, like any event. Started on first use, since most
   * processes never publish one.
   */
  noticeProducer(eventsTopic: string): Promise<EventProducer> {
    let producer = this.#notices.get(eventsTopic);
    if (producer === undefined) {
      producer = startNoticeProducer({
        kafka: this.#settings.kafka,
        registry: this.#settings.registry,
        source: '/hookstream/pusher',
        eventsTopic,
        replicationFactor: this.replicationFactor,
        clientId: `${this.#settings.clientId}-notices`,
      });
      // A failed start is not kept: the next notice tries again.
      producer.catch(() => this.#notices.delete(eventsTopic));
      this.#notices.set(eventsTopic, producer);
    }
    return producer;
  }

  /**
   * The process's shared fetch of an events topic, started at its first use; null without
   * sharedFetch, or when it could not start (the subscribers then fetch for themselves).
   */
  tapFor(topic: string): Promise<EventsTap | null> {
    if (!this.#settings.sharedFetch) return Promise.resolve(null);
    let tap = this.#taps.get(topic);
    if (tap === undefined) {
      const created = new EventsTap({
        kafka: this.kafka,
        topic,
        log: this.log,
        tag: this.#settings.clientId.replace(/[^A-Za-z0-9._-]/g, '_'),
        budget: this.memoryBudget,
      });
      tap = created.start().then(
        () => created,
        (err: unknown) => {
          this.log('warn', 'the shared fetch did not start; each subscriber fetches for itself', {
            topic,
            error: err instanceof Error ? err.message : String(err),
          });
          this.#taps.delete(topic);
          return null;
        },
      );
      this.#taps.set(topic, tap);
    }
    return tap;
  }

  async close(): Promise<void> {
    this.#stopMemoryGauges?.();
    this.endWatch.stop();
    for (const tap of this.#taps.values()) await tap.then((t) => t?.stop()).catch(() => undefined);
    for (const producer of this.#notices.values())
      await producer.then((p) => p.close()).catch(() => undefined);
    await this.attemptLog.close();
    await this.sender.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
    await this.redis?.close();
  }
}

/** The names of `sorted` (in code-unit order) that start with `prefix`, found by bisection. */
export function namesStartingWith(sorted: readonly string[], prefix: string): string[] {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as string) < prefix) low = mid + 1;
    else high = mid;
  }
  const found: string[] = [];
  for (let i = low; i < sorted.length && (sorted[i] as string).startsWith(prefix); i++)
    found.push(sorted[i] as string);
  return found;
}
