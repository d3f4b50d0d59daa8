import { readDueAtMs } from '@hookstream/contracts';
import { assertPublicDestination, DestinationLimiter, HttpClient } from '@hookstream/delivery';
import { type LogFn, type StartedFrom, type StartFrom, SubscriberConsumer } from '@hookstream/kafka';
import type { DeliveryCounts } from './delivery-observer.ts';
import { LagPoller } from './lag-poller.ts';
import { KafkaOutcomeRouter, type OutcomeRouter } from './outcome-router.ts';
import type { SubscriberMetrics } from './pusher-metrics.ts';
import type { PusherResources } from './pusher-resources.ts';
import { RecordingObserver } from './recording-observer.ts';
import { SubscriberDelivery } from './subscriber-delivery.ts';
import { type KnownRegistration, SubscriberRegistry } from './subscriber-registry.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

export interface SubscriberRunnerOptions {
  readonly topology: SubscriberTopology;
  /** The HMAC key; undefined when the subscriber has no secret (requests go unsigned). */
  readonly signingKey: Buffer | undefined;
  readonly resources: PusherResources;
  /** This subscriber's log: every line is about it. */
  readonly log: LogFn;
  /** Called when the consumer cannot continue; a process exits so its supervisor restarts it. */
  readonly onFatal: (error: Error) => void;
  /**
   * Where to resume a known subscriber whose ledger is gone (see SubscriberRegistry); without
   * it such a subscriber refuses to start. Ignored while the group has a ledger.
   */
  readonly resumeFrom?: StartFrom | undefined;
  /** What the caller already read of the registry topic; the runner reads it itself without. */
  readonly registration?: KnownRegistration | undefined;
  /** Replaces the Kafka router (tests). */
  readonly router?: OutcomeRouter;
  /** How often the lag gauges ask the broker (default 3 s). */
  readonly lagPollMs?: number;
  /**
   * How long the group waits for a silent instance (killed, frozen) before its partitions move
   * to the others; kafkajs's 30 s by default. Heartbeats go out every second even mid-delivery,
   * so a few seconds is safe; the broker bounds it (group.min.session.timeout.ms, 6 s default).
   */
  readonly sessionTimeoutMs?: number | undefined;
}

const SUMMARY_EVERY_MS = 10_000;

/**
 * One subscriber running on a process's shared resources: its topics ensured, its ledger
 * checked, its own consumer group, destination limiter and HTTP client, its delivery handler.
 * A single pusher runs one; a fleet runs many side by side.
 */
export class SubscriberRunner {
  readonly topology: SubscriberTopology;
  readonly #options: SubscriberRunnerOptions;
  readonly #observer: RecordingObserver;
  #consumer: SubscriberConsumer | null = null;
  #client: HttpClient | null = null;
  #limiter: DestinationLimiter | null = null;
  #lagPoller: LagPoller | null = null;
  #metrics: SubscriberMetrics | undefined;
  #summary: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: SubscriberRunnerOptions) {
    this.topology = options.topology;
    this.#options = options;
    this.#metrics = options.resources.metrics?.forSubscriber(
      options.topology.name,
      {
        events: options.topology.eventsTopic,
        tiers: options.topology.tierTopics,
        dlq: options.topology.dlqTopic,
      },
      {
        lag: () => this.#lagPoller?.lag ?? new Map(),
        dlqDepth: () => this.#lagPoller?.dlqDepth ?? null,
        oldestUnsettled: () => this.#consumer?.oldestUnsettled() ?? new Map(),
      },
    );
    this.#observer = new RecordingObserver({
      subscriber: options.topology.name,
      log: options.log,
      attemptLog: options.resources.attemptLog,
      ...(this.#metrics ? { metrics: this.#metrics } : {}),
    });
  }

  get counts(): Readonly<DeliveryCounts> {
    return this.#observer.counts;
  }

  async start(): Promise<StartedFrom> {
    const { topology, resources, log } = this.#options;
    const { definition } = topology;
    if (!definition.allowPrivateNetwork) await assertPublicDestination(topology.url);

    const partitions = await resources.eventsPartitions(topology.eventsTopic);
    const created = await resources.ensureTopics(topology.ownTopics(partitions, resources.replicationFactor));
    if (created.length > 0) log('info', 'created subscriber topics', { topics: created });
    const registry = new SubscriberRegistry(resources.kafka, topology.name, topology.eventsTopic);
    const startAt = await registry.check(
      resources.admin,
      resources.replicationFactor,
      toStartFrom(definition.start),
      this.#options.resumeFrom,
      this.#options.registration,
    );

    this.#client = new HttpClient({
      url: definition.url,
      timeoutMs: definition.timeoutMs,
      connections: definition.concurrency,
      allowPrivateNetwork: definition.allowPrivateNetwork,
      signingKey: this.#options.signingKey,
      extraHeaders: definition.headers,
    });
    this.#limiter = new DestinationLimiter({
      origin: topology.origin,
      rate: definition.rate,
      concurrency: definition.concurrency,
      inFlightCap: resources.inFlightCap,
      ...(resources.limiterRedisUrl
        ? {
            cluster: {
              redisUrl: resources.limiterRedisUrl,
              clusterId: `${topology.name}:${topology.origin}`,
            },
          }
        : {}),
    });
    await this.#limiter.ready();
    const delivery = new SubscriberDelivery({
      topology,
      decoder: resources.decoder,
      client: this.#client,
      limiter: this.#limiter,
      router: this.#options.router ?? new KafkaOutcomeRouter(topology, resources.sender, log),
      observer: this.#observer,
      log,
    });
    if (this.#metrics)
      this.#lagPoller = new LagPoller(
        resources.kafka.admin(),
        topology.groupId,
        [topology.eventsTopic, ...topology.tierTopics],
        topology.dlqTopic,
        log,
        this.#options.lagPollMs ?? 3000,
      );
    this.#consumer = new SubscriberConsumer({
      kafka: resources.kafka,
      groupId: topology.groupId,
      topic: topology.eventsTopic,
      extraTopics: topology.tierTopics,
      // An unreadable due time is due now: the delivery then dead-letters the record as poison.
      dueAtMs: (record) => (topology.isEventsTopic(record.topic) ? null : readDueAtMs(record.headers)),
      partitionsConsumedConcurrently: 8,
      start: startAt.start,
      ordering: definition.ordering,
      // Enough records begun per partition to keep the destination's concurrency busy.
      maxInFlightPerPartition: Math.max(8, definition.concurrency * 2),
      handle: delivery.handle,
      log,
      onFatal: this.#options.onFatal,
      maxWaitTimeInMs: 100,
      ...(this.#options.sessionTimeoutMs === undefined
        ? {}
        : { sessionTimeoutMs: this.#options.sessionTimeoutMs }),
    });
    const startedFrom = await this.#consumer.start();
    // Registered once the group has its ledger, so a first start that fails is not "known".
    await registry.register(resources.sender, startAt.registeredAt);
    await this.#lagPoller?.start();
    log('info', 'pusher started', { groupId: topology.groupId, topic: topology.eventsTopic, startedFrom });
    this.#summary = setInterval(() => log('info', 'delivery summary', { ...this.counts }), SUMMARY_EVERY_MS);
    this.#summary.unref();
    return startedFrom;
  }

  /** Stops taking work, lets in-flight attempts end, commits what is settled, leaves the group. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#summary);
    await this.#lagPoller?.stop();
    await this.#consumer?.stop();
    this.#metrics?.close();
    await this.#limiter?.stop();
    await this.#client?.close();
    this.#options.log('info', 'pusher stopped', { ...this.counts });
  }
}

function toStartFrom(start: SubscriberTopology['definition']['start']): StartFrom {
  return start === 'earliest' || start === 'latest' ? start : { timestampMs: Date.parse(start) };
}
