import {
  ATTEMPT_LOG_TOPIC,
  dlqTopicName,
  HS_HEADER,
  retryTopicName,
  subscriberGroupId,
} from '@hookstream/contracts';
import {
  assertPublicDestination,
  createInFlightCap,
  DestinationLimiter,
  HttpClient,
  type InFlightCap,
} from '@hookstream/delivery';
import {
  type Admin,
  type ConsumedRecord,
  createKafka,
  ensureTopics,
  type LogFn,
  RecordSender,
  type StartedFrom,
  type StartFrom,
  SubscriberConsumer,
} from '@hookstream/kafka';
import type { Meter } from '@opentelemetry/api';
import { AttemptLogWriter } from './attempt-log-writer.ts';
import type { LoadedSubscriber } from './definition-file.ts';
import { PusherError } from './errors.ts';
import { LagPoller } from './lag-poller.ts';
import { KafkaOutcomeRouter, type OutcomeRouter } from './outcome-router.ts';
import { PusherMetrics } from './pusher-metrics.ts';
import { AvroRecordDecoder, type RecordDecoder } from './record-decoder.ts';
import { type DeliveryCounts, SubscriberDelivery } from './subscriber-delivery.ts';
import { SubscriberRegistry } from './subscriber-registry.ts';
import { subscriberTopics } from './subscriber-topics.ts';

export interface PusherSettings {
  readonly brokers: readonly string[];
  readonly registryUrl: string;
  /** The events topic the subscriber's group reads. */
  readonly topic: string;
  readonly log: LogFn;
  /** Called when the consumer cannot continue; a process exits so its supervisor restarts it. */
  readonly onFatal: (error: Error) => void;
  /** Requests in flight across the whole process (default 1000). */
  readonly inFlightCap?: InFlightCap;
  /** Replication factor of the subscriber's own topics (default 1, the local single broker). */
  readonly replicationFactor?: number;
  /**
   * Redis URL (redis://host:port) shared by all instances of the subscriber: the destination's
   * rate, concurrency and 429 pauses then hold across them. Unset: limits are per process.
   */
  readonly limiterRedisUrl?: string | undefined;
  /**
   * Where to resume a known subscriber whose ledger is gone (see SubscriberRegistry); without
   * it such a pusher refuses to start. Ignored while the group has a ledger.
   */
  readonly resumeFrom?: StartFrom;
  readonly decoder?: RecordDecoder;
  readonly router?: OutcomeRouter;
  /** Instruments go here (lag, ages, outcomes, latencies); no metrics without one. */
  readonly meter?: Meter;
  /** How often the lag gauges ask the broker (default 3 s). */
  readonly lagPollMs?: number;
  /**
   * How long the group waits for a silent instance (killed, frozen) before its partitions move
   * to the others; kafkajs's 30 s by default. Heartbeats go out every second even mid-delivery,
   * so a few seconds is safe; the broker bounds it (group.min.session.timeout.ms, 6 s default).
   */
  readonly sessionTimeoutMs?: number;
}

const SUMMARY_EVERY_MS = 10_000;

/** One subscriber's pusher: wiring and lifecycle only; the logic lives in the packages. */
export class Pusher {
  readonly #loaded: LoadedSubscriber;
  readonly #settings: PusherSettings;
  #consumer: SubscriberConsumer | null = null;
  #client: HttpClient | null = null;
  #limiter: DestinationLimiter | null = null;
  #delivery: SubscriberDelivery | null = null;
  #sender: RecordSender | null = null;
  #attemptLog: AttemptLogWriter | null = null;
  #lagPoller: LagPoller | null = null;
  #summary: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(loaded: LoadedSubscriber, settings: PusherSettings) {
    this.#loaded = loaded;
    this.#settings = settings;
  }

  async start(): Promise<StartedFrom> {
    const { definition, signingKey } = this.#loaded;
    const { log } = this.#settings;
    const url = new URL(definition.url);
    if (!definition.allowPrivateNetwork) await assertPublicDestination(url);

    const kafka = createKafka({
      brokers: this.#settings.brokers,
      clientId: `hookstream-pusher-${definition.name}`,
    });
    const admin = kafka.admin();
    await admin.connect();
    const registry = new SubscriberRegistry(kafka, definition.name, this.#settings.topic);
    let startAt: Awaited<ReturnType<SubscriberRegistry['check']>>;
    try {
      const partitions = await this.#eventsPartitions(admin);
      const created = await ensureTopics(
        admin,
        [...subscriberTopics(definition, partitions), ATTEMPT_LOG_SPEC].map((t) => ({
          ...t,
          replicationFactor: this.#settings.replicationFactor ?? 1,
        })),
      );
      if (created.length > 0) log('info', 'created subscriber topics', { topics: created });
      startAt = await registry.check(
        admin,
        this.#settings.replicationFactor ?? 1,
        toStartFrom(definition.start),
        this.#settings.resumeFrom,
      );
    } finally {
      await admin.disconnect();
    }

    this.#client = new HttpClient({
      url: definition.url,
      timeoutMs: definition.timeoutMs,
      connections: definition.concurrency,
      allowPrivateNetwork: definition.allowPrivateNetwork,
      signingKey,
      extraHeaders: definition.headers,
    });
    this.#limiter = new DestinationLimiter({
      origin: url.origin,
      rate: definition.rate,
      concurrency: definition.concurrency,
      inFlightCap: this.#settings.inFlightCap ?? createInFlightCap(1000),
      ...(this.#settings.limiterRedisUrl
        ? {
            cluster: {
              redisUrl: this.#settings.limiterRedisUrl,
              clusterId: `${definition.name}:${url.origin}`,
            },
          }
        : {}),
    });
    await this.#limiter.ready();
    this.#sender = new RecordSender(kafka);
    await this.#sender.connect();
    this.#attemptLog = new AttemptLogWriter(this.#sender, log);
    const eventsTopic = this.#settings.topic;
    const tierTopics = definition.retry.delaysMs.map((_, i) => retryTopicName(definition.name, i + 1));
    const metrics = this.#settings.meter
      ? this.#startMetrics(kafka, this.#settings.meter, tierTopics)
      : undefined;
    this.#delivery = new SubscriberDelivery({
      definition,
      eventsTopic: this.#settings.topic,
      decoder: this.#settings.decoder ?? new AvroRecordDecoder(this.#settings.registryUrl),
      client: this.#client,
      limiter: this.#limiter,
      router: this.#settings.router ?? new KafkaOutcomeRouter(definition.name, this.#sender, log),
      attemptLog: this.#attemptLog,
      log,
      ...(metrics ? { metrics } : {}),
    });
    this.#consumer = new SubscriberConsumer({
      kafka,
      groupId: subscriberGroupId(definition.name),
      topic: eventsTopic,
      extraTopics: tierTopics,
      dueAtMs: (record) => (record.topic === eventsTopic ? null : dueAtOf(record)),
      partitionsConsumedConcurrently: 8,
      start: startAt.start,
      ordering: definition.ordering,
      // Enough records begun per partition to keep the destination's concurrency busy.
      maxInFlightPerPartition: Math.max(8, definition.concurrency * 2),
      handle: this.#delivery.handle,
      log,
      onFatal: this.#settings.onFatal,
      maxWaitTimeInMs: 100,
      ...(this.#settings.sessionTimeoutMs === undefined
        ? {}
        : { sessionTimeoutMs: this.#settings.sessionTimeoutMs }),
    });
    const startedFrom = await this.#consumer.start();
    // Registered once the group has its ledger, so a first start that fails is not "known".
    await registry.register(this.#sender, startAt.registeredAt);
    await this.#lagPoller?.start();
    log('info', 'pusher started', {
      groupId: subscriberGroupId(definition.name),
      topic: this.#settings.topic,
      startedFrom,
    });
    this.#summary = setInterval(() => log('info', 'delivery summary', { ...this.counts }), SUMMARY_EVERY_MS);
    this.#summary.unref();
    return startedFrom;
  }

  get counts(): Readonly<DeliveryCounts> {
    return (
      this.#delivery?.counts ?? {
        acknowledged: 0,
        filtered: 0,
        retries: 0,
        deadLettered: 0,
        poison: 0,
        abandoned: 0,
      }
    );
  }

  /** Stops taking work, lets in-flight attempts end, commits what is settled, leaves the group. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#summary);
    await this.#lagPoller?.stop();
    await this.#consumer?.stop();
    await this.#attemptLog?.close();
    await this.#sender?.disconnect();
    await this.#limiter?.stop();
    await this.#client?.close();
    this.#settings.log('info', 'pusher stopped', { ...this.counts });
  }

  /** The instruments, and the poller that feeds the lag gauges (started with the consumer). */
  #startMetrics(kafka: ReturnType<typeof createKafka>, meter: Meter, tierTopics: string[]): PusherMetrics {
    const { definition } = this.#loaded;
    const topics = { events: this.#settings.topic, tiers: tierTopics, dlq: dlqTopicName(definition.name) };
    const poller = new LagPoller(
      kafka.admin(),
      subscriberGroupId(definition.name),
      [topics.events, ...tierTopics],
      topics.dlq,
      this.#settings.log,
      this.#settings.lagPollMs ?? 3000,
    );
    this.#lagPoller = poller;
    return new PusherMetrics(meter, definition.name, topics, {
      lag: () => poller.lag,
      dlqDepth: () => poller.dlqDepth,
      oldestUnsettled: () => this.#consumer?.oldestUnsettled() ?? new Map(),
    });
  }

  async #eventsPartitions(admin: Admin): Promise<number> {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [this.#settings.topic] });
      const count = topics[0]?.partitions.length ?? 0;
      if (count > 0) return count;
    } catch {
      // Reported below: the cause is almost always a topic that does not exist yet.
    }
    throw new PusherError(
      'NO_EVENTS_TOPIC',
      `the events topic "${this.#settings.topic}" does not exist (the ingress creates it; auto-creation is off)`,
      true,
    );
  }
}

/** A tier record's due time; an unreadable one is due now, and the delivery dead-letters it. */
function dueAtOf(record: ConsumedRecord): number | null {
  const dueAt = record.headers[HS_HEADER.dueAt];
  const ms = dueAt === undefined ? Number.NaN : Date.parse(dueAt);
  return Number.isNaN(ms) ? null : ms;
}

const ATTEMPT_LOG_RETENTION_MS = 7 * 86_400_000;

/**
 * Shared by every subscriber and created by whichever pusher starts first, so its partition
 * count is fixed rather than copied from one subscriber's events topic. Kept a week.
 */
const ATTEMPT_LOG_SPEC = {
  topic: ATTEMPT_LOG_TOPIC,
  partitions: 6,
  replicationFactor: 1,
  config: { 'retention.ms': String(ATTEMPT_LOG_RETENTION_MS), 'cleanup.policy': 'delete' },
};

function toStartFrom(start: LoadedSubscriber['definition']['start']): StartFrom {
  return start === 'earliest' || start === 'latest' ? start : { timestampMs: Date.parse(start) };
}
