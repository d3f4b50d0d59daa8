import { hostname } from 'node:os';
import type { CredentialName, LogFn, SubscriberDefinition } from '@hookstream/contracts';
import {
  assertDestinationAllowed,
  type BreakerPhase,
  type Classification,
  DestinationLimiter,
  type FleetBreakerChange,
  HttpClient,
  RedisBreakerStore,
  TenantTurns,
  turnsAhead,
} from '@hookstream/delivery';
import type { StartedFrom, StartFrom } from '@hookstream/kafka';
import { noticesTopicSpec } from '@hookstream/producer';
import {
  AuditTrail,
  publishNotice,
  SubscriberCatalog,
  SubscriberDisabler,
  startFromOf,
} from '@hookstream/subscribers';
import { failingNotice, recoveredNotice } from './breaker-notices.ts';
import type { LaneMode } from './consume/lanes/events-lane.ts';
import type { RecordHandler } from './consume/record-handler.ts';
import { SubscriberConsumer } from './consume/subscriber-consumer.ts';
import type { EventsTap } from './consume/tap/events-tap.ts';
import { DeadLetterNotices } from './dead-letter-notices.ts';
import type { DeliveryCounts } from './delivery-observer.ts';
import { DownstreamCopies } from './downstream-copies.ts';
import { type DisableVerdict, EndpointHealth } from './endpoint-health.ts';
import { GapRecorder } from './gap-recorder.ts';
import { resolveHeaders } from './header-values.ts';
import { KafkaGapLedger } from './kafka-gap-ledger.ts';
import { LagPoller } from './lag-poller.ts';
import { LeaseBook } from './lease-book.ts';
import { type KnownRegistration, LedgerRegistrations } from './ledger-registrations.ts';
import { OutboundAuth } from './outbound-auth.ts';
import { KafkaOutcomeRouter, type OutcomeRouter } from './outcome-router.ts';
import { OwnTopics } from './own-topics.ts';
import { PullDelivery } from './pull-delivery.ts';
import type { SubscriberMetrics } from './pusher-metrics.ts';
import type { PusherResources } from './pusher-resources.ts';
import type { RecentAttemptCounts } from './recent-attempts.ts';
import { RecordingObserver } from './recording-observer.ts';
import { SubscriberDelivery } from './subscriber-delivery.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

export interface SubscriberRunnerOptions {
  readonly topology: SubscriberTopology;
  /**
   * HMAC keys, the current one first (a rotation's previous ones follow and sign too); empty
   * when the subscriber has no secret (requests go unsigned).
   */
  readonly signingKeys: readonly Buffer[];
  /** The values of the definition's `{ "managed": true }` headers, opened from the catalog. */
  readonly managedHeaders?: Readonly<Record<string, string>>;
  /** The values of the definition's `{ "managed": true }` credentials, opened from the catalog. */
  readonly managedCredentials?: Readonly<Partial<Record<CredentialName, string>>>;
  readonly resources: PusherResources;
  /** This subscriber's log: every line is about it. */
  readonly log: LogFn;
  /** Called when the consumer cannot continue; a process exits so its supervisor restarts it. */
  readonly onFatal: (error: Error) => void;
  /**
   * Where to resume a known subscriber whose ledger is gone (see LedgerRegistrations); without
   * it such a subscriber refuses to start. Ignored while the group has a ledger.
   */
  readonly resumeFrom?: StartFrom | undefined;
  /** What the caller already read of the catalog topic; the runner reads it itself without. */
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
  /**
   * `push --config`: the definition as the file gives it (its secret reference included), written
   * as the subscriber's catalog record when it is disabled and the catalog has none.
   */
  readonly fileDefinition?: SubscriberDefinition | undefined;
  /**
   * Called once the subscriber's record says disabled. A fleet needs none: its registry watch
   * stops the runner; a single pusher stops it here.
   */
  readonly onDisabled?: () => void;
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
  readonly #deadLetterNotices: DeadLetterNotices;
  /** Push only: the endpoint's breaker (null for pull, and until the push handler is made). */
  #health: EndpointHealth | null = null;
  #book: LeaseBook | null = null;
  #consumer: SubscriberConsumer | null = null;
  #client: HttpClient | null = null;
  #auth: OutboundAuth | null = null;
  #limiter: DestinationLimiter | null = null;
  #lagPoller: LagPoller | null = null;
  #metrics: SubscriberMetrics | undefined;
  #summary: NodeJS.Timeout | undefined;
  #ownTopics: OwnTopics | null = null;
  #handle: RecordHandler | null = null;
  #gaps: GapRecorder | null = null;
  #tap: EventsTap | null = null;
  #startAt: StartFrom = 'latest';
  /** The tier topics the group reads (see OwnTopics.tiersToRead); lag covers these too. */
  #tiers: readonly string[] = [];
  #stopped = false;

  constructor(options: SubscriberRunnerOptions) {
    this.topology = options.topology;
    this.#options = options;
    this.#metrics = options.resources.metrics?.forSubscriber(
      options.topology.name,
      {
        events: options.topology.eventsTopic,
        tiers: () => this.#tiers,
        dlq: options.topology.dlqTopic,
      },
      {
        lag: () => this.#lagPoller?.lag ?? new Map(),
        dlqDepth: () => this.#lagPoller?.dlqDepth ?? null,
        oldestUnsettled: () => this.#consumer?.oldestUnsettled() ?? new Map(),
        breaker: () => this.#health?.phase ?? 'closed',
        required: options.topology.definition.required === true,
        tenant: options.topology.definition.tenant,
      },
    );
    const { topology, resources } = options;
    this.#deadLetterNotices = new DeadLetterNotices({
      subscriber: topology.name,
      tenant: topology.definition.tenant,
      eventsTopic: topology.eventsTopic,
      notices: () => resources.noticeProducer(topology.eventsTopic),
      log: options.log,
    });
    this.#observer = new RecordingObserver({
      subscriber: topology.name,
      log: options.log,
      attemptLog: resources.attemptLog,
      deadLetterNotices: this.#deadLetterNotices,
      ...(this.#metrics ? { metrics: this.#metrics } : {}),
    });
  }

  /** The destination's circuit breaker as this instance sees it. */
  get breaker(): BreakerPhase {
    return this.#health?.phase ?? 'closed';
  }

  /** A pull subscriber's lease book; null for push, and until the runner started. */
  get leases(): LeaseBook | null {
    return this.#book;
  }

  get counts(): Readonly<DeliveryCounts> {
    return this.#observer.counts;
  }

  /** HTTP attempts and 2xx answers of the last five minutes on this instance. */
  recentAttempts(): RecentAttemptCounts {
    return this.#observer.recent.counts();
  }

  /** Kafka timestamp of the oldest record this instance holds unsettled, on any of its topics. */
  oldestUnsettledAt(): string | null {
    const times = [...(this.#consumer?.oldestUnsettled().values() ?? [])];
    return times.length === 0 ? null : new Date(Math.min(...times)).toISOString();
  }

  async start(): Promise<StartedFrom> {
    const { topology, resources, log } = this.#options;
    const { definition } = topology;
    const startedAtMs = Date.now();
    // A push subscriber's endpoint and credentials are checked before anything is created.
    const extraHeaders = topology.pull ? {} : await this.#preparePush();

    const partitions = await resources.eventsPartitions(topology.eventsTopic);
    // The group reads it from its first join, so it must exist (another writer may create it too).
    if (topology.noticesTopic !== null)
      await resources.ensureTopics([noticesTopicSpec(topology.eventsTopic, resources.replicationFactor)]);
    const ownPartitions = Math.min(partitions, resources.tierPartitions ?? partitions);
    // The tiers and the DLQ exist before the group's first join, which reads them: a first
    // failure then writes one record, and nothing makes the group rejoin (docs/architecture.md,
    // "When tiers are created").
    this.#ownTopics = new OwnTopics({ topology, resources, partitions: ownPartitions, log });
    // The process's shared listing says what exists (a restart: everything), so only what is
    // missing is asked of the broker.
    await this.#ownTopics.tiersToRead();
    await this.#ownTopics.ensure();
    const tiers = await this.#ownTopics.tiersToRead();
    await this.#ownTopics.alignRetention().catch((err: unknown) =>
      log('warn', "cannot bring the retry tiers' retention to the definition; they keep their own", {
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    const registry = new LedgerRegistrations(resources.kafka, topology.name, topology.eventsTopic);
    const startAt = await registry.check(
      resources.admin,
      resources.replicationFactor,
      startFromOf(definition.start),
      this.#options.resumeFrom,
      this.#options.registration,
    );

    const router =
      this.#options.router ?? new KafkaOutcomeRouter(topology, resources.sender, log, this.#ownTopics.ensure);
    this.#handle = topology.pull ? this.#pullHandler(router) : await this.#pushHandler(extraHeaders, router);
    if (this.#metrics)
      this.#lagPoller = new LagPoller(
        resources.admin,
        topology.groupId,
        () => [
          topology.eventsTopic,
          ...(topology.noticesTopic === null ? [] : [topology.noticesTopic]),
          ...this.#tiers,
        ],
        () => (this.#ownTopics?.dlqExists ? topology.dlqTopic : null),
        log,
        this.#options.lagPollMs ?? 3000,
      );
    this.#gaps = new GapRecorder({
      subscriber: topology.name,
      tenant: topology.definition.tenant,
      eventsTopic: topology.eventsTopic,
      dlqTopic: topology.dlqTopic,
      ledger: new KafkaGapLedger(
        resources.kafka,
        resources.sender,
        topology.dlqTopic,
        this.#ownTopics.ensure,
      ),
      notices: () => resources.noticeProducer(topology.eventsTopic),
      log,
      counted: (count) => this.#metrics?.eventsLost(count),
    });
    this.#tap = await resources.tapFor(topology.eventsTopic);
    this.#startAt = startAt.start;
    this.#consumer = this.#newConsumer(tiers);
    const joiningAtMs = Date.now();
    const startedFrom = await this.#consumer.start();
    const joinedAtMs = Date.now();
    // Registered once the group has its ledger, so a first start that fails is not "known".
    await registry.register(resources.sender, startAt.registeredAt);
    await this.#lagPoller?.start();
    // Where a start's time went: a fleet of a thousand starts them a few at a time.
    const timings = {
      prepareMs: joiningAtMs - startedAtMs,
      joinMs: joinedAtMs - joiningAtMs,
      afterMs: Date.now() - joinedAtMs,
    };
    log('info', 'pusher started', {
      groupId: topology.groupId,
      topic: topology.eventsTopic,
      startedFrom,
      ...timings,
    });
    // Only when something happened since the last one: a fleet of idle subscribers stays quiet.
    let summarized = '';
    this.#summary = setInterval(() => {
      const counts = JSON.stringify(this.counts);
      if (counts === summarized) return;
      summarized = counts;
      // Where its events partitions' records come from: a lane reading `own` while it should
      // ride the tap is a subscriber that fell behind.
      log('info', 'delivery summary', { ...this.counts, lanes: this.#laneModeCounts() });
    }, SUMMARY_EVERY_MS);
    this.#summary.unref();
    return startedFrom;
  }

  #newConsumer(tiers: readonly string[]): SubscriberConsumer {
    this.#tiers = tiers;
    const { topology, resources, log } = this.#options;
    const handle = this.#handle;
    const gaps = this.#gaps;
    if (handle === null || gaps === null)
      throw new Error('the delivery handler and the gap recorder are created before the consumer');
    return new SubscriberConsumer({
      subscription: topology.subscription,
      tiers,
      process: {
        kafka: resources.kafka,
        admin: resources.admin,
        tap: this.#tap,
        budget: resources.memoryBudget,
        endWatch: resources.endWatch,
        partitionsConsumedConcurrently: 8,
        maxWaitTimeInMs: resources.fetchWaitMs,
        fetchMaxBytes: resources.fetchMaxBytes,
        sessionTimeoutMs: this.#options.sessionTimeoutMs,
      },
      start: this.#startAt,
      handle,
      log,
      onFatal: this.#options.onFatal,
      onGap: (gap) => gaps.record(gap),
      // A kill between a copy's acknowledgement and its commit: the copy is found, not made again.
      copies: new DownstreamCopies(resources.kafka, resources.admin, () => [
        ...tiers,
        ...(this.#ownTopics?.dlqExists ? [topology.dlqTopic] : []),
      ]).find,
    });
  }

  /** The headers a push subscriber sends, once its endpoint and outbound credentials check out. */
  async #preparePush(): Promise<Record<string, string>> {
    const { topology, resources } = this.#options;
    const { definition } = topology;
    const extraHeaders = resolveHeaders(
      topology.name,
      definition.headers,
      process.env,
      this.#options.managedHeaders,
    );
    await assertDestinationAllowed(topology.url, definition);
    this.#auth = await OutboundAuth.open({
      subscriber: topology.name,
      definition,
      pools: resources.httpPools,
      ...(this.#options.managedCredentials === undefined
        ? {}
        : { managed: this.#options.managedCredentials }),
    });
    return extraHeaders;
  }

  /** Push: the HTTP client, the destination's limiter and breaker, the delivery handler. */
  async #pushHandler(extraHeaders: Record<string, string>, router: OutcomeRouter): Promise<RecordHandler> {
    const { topology, resources } = this.#options;
    const { definition } = topology;
    const health = this.#healthOf();
    this.#client = new HttpClient({
      url: topology.url.href,
      timeoutMs: definition.timeoutMs,
      connections: definition.concurrency,
      allowPrivateNetwork: definition.allowPrivateNetwork,
      signingKeys: this.#options.signingKeys,
      extraHeaders,
      pools: resources.httpPools,
      bearer: this.#auth?.bearer,
      clientCertificate: this.#auth?.clientCertificate,
    });
    this.#limiter = new DestinationLimiter({
      origin: topology.origin,
      rate: definition.rate,
      concurrency: definition.concurrency,
      inFlightCap: resources.inFlightCap.share(topology.name),
      ...(resources.redis
        ? {
            cluster: {
              redis: resources.redis,
              clusterId: `${topology.name}:${topology.origin}`,
              // A send holds its slot of the shared concurrency at most its timeout and a margin.
              leaseMs: definition.timeoutMs + 10_000,
            },
          }
        : {}),
    });
    await this.#limiter.ready();
    await health.start();
    return new SubscriberDelivery({
      topology,
      decoder: resources.decoder,
      client: this.#client,
      limiter:
        definition.fairness === 'tenant'
          ? new TenantTurns(this.#limiter, { ahead: turnsAhead(definition.rate, definition.concurrency) })
          : this.#limiter,
      router,
      observer: this.#observer,
      health,
    }).handle;
  }

  /** Pull: the lease book pullers take the subscriber's events from, and its handler. */
  #pullHandler(router: OutcomeRouter): RecordHandler {
    const { topology, resources } = this.#options;
    this.#book = new LeaseBook();
    return new PullDelivery({
      topology,
      decoder: resources.decoder,
      router,
      observer: this.#observer,
      book: this.#book,
    }).handle;
  }

  /** The endpoint's breaker and auto-disable: push only, made when first asked. */
  #healthOf(): EndpointHealth {
    if (this.#health !== null) return this.#health;
    const { topology, resources, log } = this.#options;
    const { redis } = resources;
    this.#health = new EndpointHealth({
      definition: topology.definition,
      log,
      // The limiter's Redis, so the instances sharing its limits share its breaker too.
      ...(redis ? { store: new RedisBreakerStore(redis, `${topology.name}:${topology.origin}`) } : {}),
      disable: (verdict) => this.#disable(verdict),
      announce: (change, lastFailure) => void this.#announce(change, lastFailure),
    });
    return this.#health;
  }

  /** `subscriber.failing` or `subscriber.recovered`; best effort, like the breaker's log lines. */
  async #announce(change: FleetBreakerChange, lastFailure: Classification | null): Promise<void> {
    const { topology, resources, log } = this.#options;
    const subject = {
      name: topology.name,
      tenant: topology.definition.tenant,
      destination: topology.url.host,
      eventsTopic: topology.eventsTopic,
    };
    const notice =
      change.kind === 'opened'
        ? failingNotice(subject, change, lastFailure)
        : recoveredNotice(subject, change);
    try {
      await publishNotice(await resources.noticeProducer(topology.eventsTopic), notice);
      log('info', `${notice.type} published`, { notice: notice.id });
    } catch (err) {
      log('warn', `could not publish ${notice.type}`, {
        notice: notice.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * Writes the subscriber's record disabled and announces it; the consumer then stops (the
   * fleet's registry watch, or onDisabled), leaving the ledger where it is. Throws only when the
   * record could not be written: then nothing changed and delivery goes on.
   */
  async #disable(verdict: DisableVerdict): Promise<void> {
    const { topology, resources, log } = this.#options;
    const disabler = new SubscriberDisabler({
      catalog: new SubscriberCatalog(resources.kafka),
      publisher: () => resources.noticeProducer(topology.eventsTopic),
      eventsTopic: topology.eventsTopic,
      // host:pid, as an instance names itself in hookstream.instances without --instance.
      audit: {
        trail: new AuditTrail(resources.kafka),
        actor: { kind: 'system', component: 'pusher', instance: `${hostname()}:${process.pid}` },
      },
    });
    const result = await disabler.disable({
      name: topology.name,
      ...verdict,
      ...(this.#options.fileDefinition ? { definition: this.#options.fileDefinition } : {}),
    });
    const notice = result.notice;
    if (notice === null)
      log('warn', 'subscriber already not active; another instance or an operator changed it', {
        cause: verdict.cause,
        state: result.record.state.kind,
      });
    else if (notice.error === null)
      log('warn', 'subscriber disabled; subscriber.disabled published', {
        cause: verdict.cause,
        reason: verdict.reason,
        notice: notice.id,
      });
    else
      log('error', 'subscriber disabled; its subscriber.disabled notice could not be published', {
        cause: verdict.cause,
        reason: verdict.reason,
        notice: notice.id,
        error: notice.error,
      });
    if (result.auditError !== null)
      log('error', 'subscriber disabled; its audit record could not be written', {
        cause: verdict.cause,
        error: result.auditError,
      });
    this.#options.onDisabled?.();
  }

  #laneModeCounts(): Partial<Record<LaneMode, number>> {
    const counts: Partial<Record<LaneMode, number>> = {};
    for (const mode of this.#consumer?.laneModes().values() ?? []) counts[mode] = (counts[mode] ?? 0) + 1;
    return counts;
  }

  /** Stops taking work, lets in-flight attempts end, commits what is settled, leaves the group. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#summary);
    await this.#lagPoller?.stop();
    await this.#consumer?.stop();
    // After the consumer: its last dead letters are counted before the window's count goes out.
    await this.#deadLetterNotices.stop();
    this.#metrics?.close();
    await this.#limiter?.stop();
    await this.#health?.stop();
    await this.#client?.close();
    await this.#auth?.close();
    this.#options.log('info', 'pusher stopped', { ...this.counts });
  }
}
