import { retryTierOf } from '@hookstream/contracts';
import type { BreakerPhase, OutcomeClass } from '@hookstream/delivery';
import { type ExemplarCounter, exemplarCounter, type SampledIds } from '@hookstream/telemetry';
import type {
  BatchObservableCallback,
  Counter,
  Histogram,
  Meter,
  Observable,
  ObservableGauge,
} from '@opentelemetry/api';
import { type DeliveryMetrics, statusClass } from './delivery-metrics.ts';
import type { DeliveryOutcomeKind } from './delivery-outcome.ts';

/** The subscriber's topics as the gauges label them. */
export interface SubscriberTopicSet {
  readonly events: string;
  /**
   * The tier topics read now, asked at each scrape: the definition's that exist and any other
   * tier still being drained (a schedule that shrank).
   */
  readonly tiers: () => readonly string[];
  readonly dlq: string;
}

/** The process's memory budget as its gauges read it at scrape time. */
export interface MemoryGaugeSource {
  readonly limit: number;
  readonly held: number;
  readonly pausedFetches: number;
  readonly pauses: number;
}

/** What the gauges read at scrape time. */
export interface PusherGaugeSources {
  /** Records above the ledger per topic, from the last poll; absent before the first. */
  lag(): ReadonlyMap<string, number>;
  /** Records held by the DLQ, from the last poll; null before the first. */
  dlqDepth(): number | null;
  /** Per topic, the Kafka timestamp (ms) of the oldest record held unsettled. */
  oldestUnsettled(): ReadonlyMap<string, number>;
  /** The destination's circuit breaker; absent: the subscriber has none to report. */
  breaker?(): BreakerPhase;
  /** A required consumer (its definition says `required: true`): it reports its oldest pending delivery. */
  readonly required?: boolean;
  /** The subscriber's tenant: it then reports `hookstream_subscriber_info{subscriber,tenant}`. */
  readonly tenant?: string | undefined;
}

const BREAKER_PHASES: readonly BreakerPhase[] = ['closed', 'half-open', 'open'];

/** One subscriber's view of the process's instruments; `close` stops its gauges. */
export interface SubscriberMetrics extends DeliveryMetrics {
  /** A gap's events, counted once per gap (its dead letter is one `lost` record). */
  eventsLost(count: number): void;
  close(): void;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The pusher's instruments, created once per process and shared by every subscriber it runs
 * (the subscriber is a label). Labels are bounded: subscribers, their own topics and tiers,
 * outcome and status classes, dead-letter reasons; never event ids or URLs.
 */
export class PusherMetrics {
  readonly #meter: Meter;
  readonly #attempts: Counter;
  readonly #firstAttemptFailures: ExemplarCounter;
  readonly #records: Counter;
  readonly #deadLetters: Counter;
  readonly #registryWaits: Counter;
  readonly #lostEvents: Counter;
  readonly #attemptDuration: Histogram;
  readonly #limiterWait: Histogram;
  readonly #lag: ObservableGauge;
  readonly #age: ObservableGauge;
  readonly #tierDepth: ObservableGauge;
  readonly #dlqDepth: ObservableGauge;
  readonly #breaker: ObservableGauge;
  readonly #requiredAge: ObservableGauge;
  readonly #info: ObservableGauge;

  constructor(meter: Meter) {
    this.#meter = meter;
    // Names carry their unit: this Prometheus exporter does not append it.
    this.#attempts = meter.createCounter('hookstream.pusher.deliveries', {
      description: 'HTTP delivery attempts, by outcome class (ack, retryable, terminal) and status class',
      unit: '{attempt}',
    });
    // Its own counter, not a label of deliveries: an attempt number is unbounded, and this
    // series is what an alert on first-attempt failures and its exemplars read.
    this.#firstAttemptFailures = exemplarCounter(meter, 'hookstream.pusher.first_attempt.failures', {
      description:
        'First delivery attempts that failed, by outcome class (retryable, terminal) and status class; exemplar: the last traced one',
      unit: '{attempt}',
    });
    this.#records = meter.createCounter('hookstream.pusher.records', {
      description:
        'Consumed records by what became of them: delivered, retry-scheduled, dead-lettered, filtered, abandoned',
      unit: '{record}',
    });
    this.#deadLetters = meter.createCounter('hookstream.pusher.dead_letters', {
      description: 'Records written to the DLQ, by reason (terminal, exhausted, expired, poison, lost)',
      unit: '{record}',
    });
    this.#registryWaits = meter.createCounter('hookstream.pusher.registry.waits', {
      description:
        'Times a record waited because the schema registry could not be asked (5xx, timeout, down)',
      unit: '{wait}',
    });
    this.#lostEvents = meter.createCounter('hookstream.pusher.lost_events', {
      description:
        'Events retention deleted before the subscriber read them (its ledger was below the log start); each gap is one `lost` dead letter',
      unit: '{event}',
    });
    this.#attemptDuration = meter.createHistogram('hookstream.pusher.attempt.duration.seconds', {
      description: 'One HTTP attempt, request sent to response read (or timeout)',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    });
    this.#limiterWait = meter.createHistogram('hookstream.pusher.limiter.wait.seconds', {
      description: "Time an attempt waited for the destination's rate and concurrency limits",
      unit: 's',
      advice: { explicitBucketBoundaries: [0, ...SECONDS_BUCKETS] },
    });
    this.#lag = meter.createObservableGauge('hookstream.pusher.consumer.lag', {
      description: "Records above the subscriber's ledger (high watermark − committed offset), per topic",
      unit: '{record}',
    });
    this.#age = meter.createObservableGauge('hookstream.pusher.oldest_unsettled.age.seconds', {
      description:
        'Age of the oldest record this pusher holds unsettled (in flight or waiting until due), per topic',
      unit: 's',
    });
    this.#requiredAge = meter.createObservableGauge('hookstream.required.oldest_pending.seconds', {
      description:
        'A required subscriber: age (Kafka timestamp) of the oldest record this pusher holds unsettled on any of its topics, 0 when none',
      unit: 's',
    });
    this.#tierDepth = meter.createObservableGauge('hookstream.pusher.retry_tier.depth', {
      description: 'Records waiting in each retry tier (its lag)',
      unit: '{record}',
    });
    this.#dlqDepth = meter.createObservableGauge('hookstream.pusher.dlq.depth', {
      description: "Records held in the subscriber's DLQ",
      unit: '{record}',
    });
    // The tenant is a label of this one series per subscriber of a tenant, not of every series:
    // a subscriber belongs to one tenant, so its label already names the tenant's series, and a
    // join on `subscriber` attributes them without multiplying any (docs/operations.md).
    this.#info = meter.createObservableGauge('hookstream.subscriber.info', {
      description:
        'Always 1, for each subscriber of a tenant: its tenant, to join other series on `subscriber`',
      unit: '',
    });
    this.#breaker = meter.createObservableGauge('hookstream.pusher.breaker.state', {
      description:
        "The destination's circuit breaker as this instance sees it: 1 for its current state (closed, half-open, open), 0 for the others",
      unit: '{state}',
    });
  }

  /**
   * A fleet's count of catalog records it skips (unreadable, breaking the definition rules, seals
   * it cannot open), asked at scrape time; returns what stops the gauge.
   */
  observeSkippedRecords(count: () => number): () => void {
    const gauge = this.#meter.createObservableGauge('hookstream.pusher.catalog.skipped_records', {
      description:
        'Catalog records this fleet does not run: unreadable, breaking the definition rules, or seals it cannot open (see its log)',
      unit: '{record}',
    });
    const observe = (result: { observe(value: number): void }) => result.observe(count());
    gauge.addCallback(observe);
    return () => gauge.removeCallback(observe);
  }

  /**
   * The retention headroom per subscriber, topic and partition, from the watch's last look
   * (asked at scrape time); returns what stops the gauge.
   */
  observeRetentionHeadroom(
    points: () => readonly { subscriber: string; topic: string; partition: number; seconds: number }[],
  ): () => void {
    const gauge = this.#meter.createObservableGauge('hookstream.retention_headroom.seconds', {
      description:
        "Seconds until the topic's retention reaches the first record the subscriber has not settled (paused subscribers too); absent: unbounded",
      unit: 's',
    });
    const observe = (result: { observe(value: number, attributes: Record<string, string>): void }) => {
      for (const p of points())
        result.observe(p.seconds, {
          subscriber: p.subscriber,
          topic: p.topic,
          partition: String(p.partition),
        });
    };
    gauge.addCallback(observe);
    return () => gauge.removeCallback(observe);
  }

  /**
   * The process's memory budget: its limit, the bytes of records held against it, the fetches
   * paused now because it is full and how often one paused. Returns what stops the gauges.
   */
  observeMemory(budget: MemoryGaugeSource): () => void {
    const limit = this.#meter.createObservableGauge('hookstream.pusher.memory.budget.bytes', {
      description: "The process's memory budget for records waiting (tap, lane queues, tier lanes)",
      unit: 'By',
    });
    const held = this.#meter.createObservableGauge('hookstream.pusher.memory.held.bytes', {
      description: 'Bytes of records held against the memory budget now',
      unit: 'By',
    });
    const paused = this.#meter.createObservableGauge('hookstream.pusher.fetch.paused', {
      description: 'Partitions whose fetch is paused now because the memory budget is full',
      unit: '{partition}',
    });
    const pauses = this.#meter.createObservableCounter('hookstream.pusher.fetch.pauses', {
      description: 'Times a partition fetch paused because the memory budget was full',
      unit: '{pause}',
    });
    const gauges: Observable[] = [limit, held, paused, pauses];
    const observe: BatchObservableCallback = (result) => {
      result.observe(limit, budget.limit);
      result.observe(held, budget.held);
      result.observe(paused, budget.pausedFetches);
      result.observe(pauses, budget.pauses);
    };
    this.#meter.addBatchObservableCallback(observe, gauges);
    return () => this.#meter.removeBatchObservableCallback(observe, gauges);
  }

  /** Binds the instruments to one subscriber and starts its gauges. */
  forSubscriber(
    subscriber: string,
    topics: SubscriberTopicSet,
    sources: PusherGaugeSources,
  ): SubscriberMetrics {
    const gauges: Observable[] = [
      this.#lag,
      this.#age,
      this.#tierDepth,
      this.#dlqDepth,
      this.#breaker,
      this.#requiredAge,
      this.#info,
    ];
    const info = sources.tenant === undefined ? null : { subscriber, tenant: sources.tenant };
    const observe: BatchObservableCallback = (result) => {
      if (info !== null) result.observe(this.#info, 1, info);
      const tiers = topics.tiers();
      const allTopics = [topics.events, ...tiers];
      const lags = sources.lag();
      const oldest = sources.oldestUnsettled();
      const now = Date.now();
      if (sources.required === true) {
        const times = [...oldest.values()];
        const age = times.length === 0 ? 0 : Math.max(0, (now - Math.min(...times)) / 1000);
        result.observe(this.#requiredAge, age, { subscriber });
      }
      for (const topic of allTopics) {
        const l = lags.get(topic);
        if (l !== undefined) result.observe(this.#lag, l, { subscriber, topic });
        const ts = oldest.get(topic);
        result.observe(this.#age, ts === undefined ? 0 : Math.max(0, (now - ts) / 1000), {
          subscriber,
          topic,
        });
      }
      for (const topic of tiers) {
        const l = lags.get(topic);
        const tier = retryTierOf(subscriber, topic);
        if (l !== undefined && tier !== null)
          result.observe(this.#tierDepth, l, { subscriber, tier: String(tier) });
      }
      const dlq = sources.dlqDepth();
      if (dlq !== null) result.observe(this.#dlqDepth, dlq, { subscriber });
      const phase = sources.breaker?.();
      if (phase !== undefined)
        for (const state of BREAKER_PHASES)
          result.observe(this.#breaker, state === phase ? 1 : 0, { subscriber, state });
    };
    this.#meter.addBatchObservableCallback(observe, gauges);
    return {
      attempted: (outcomeClass: OutcomeClass, status: number | null, durationMs: number) => {
        const status_class = statusClass(status);
        this.#attempts.add(1, { subscriber, outcome_class: outcomeClass, status_class });
        this.#attemptDuration.record(durationMs / 1000, { subscriber, status_class });
      },
      firstAttemptFailed: (
        outcomeClass: Exclude<OutcomeClass, 'ack'>,
        status: number | null,
        trace: SampledIds | undefined,
      ) =>
        this.#firstAttemptFailures.add(
          1,
          { subscriber, outcome_class: outcomeClass, status_class: statusClass(status) },
          trace,
        ),
      limiterWaited: (ms: number) => this.#limiterWait.record(ms / 1000, { subscriber }),
      ended: (outcome: DeliveryOutcomeKind, deadLetterReason?: string) => {
        this.#records.add(1, { subscriber, outcome });
        if (deadLetterReason !== undefined)
          this.#deadLetters.add(1, { subscriber, reason: deadLetterReason });
      },
      registryWaited: () => this.#registryWaits.add(1, { subscriber }),
      eventsLost: (count: number) => {
        this.#lostEvents.add(count, { subscriber });
        this.#deadLetters.add(1, { subscriber, reason: 'lost' });
      },
      close: () => this.#meter.removeBatchObservableCallback(observe, gauges),
    };
  }
}
