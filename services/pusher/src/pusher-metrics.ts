import type { OutcomeClass } from '@hookstream/delivery';
import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import { type DeliveryMetrics, type RecordOutcome, statusClass } from './delivery-metrics.ts';

/** The subscriber's topics as the gauges label them. */
export interface SubscriberTopicSet {
  readonly events: string;
  /** Tier topics in order: tier n is `tiers[n - 1]`. */
  readonly tiers: readonly string[];
  readonly dlq: string;
}

/** What the gauges read at scrape time. */
export interface PusherGaugeSources {
  /** Records above the ledger per topic, from the last poll; absent before the first. */
  lag(): ReadonlyMap<string, number>;
  /** Records held by the DLQ, from the last poll; null before the first. */
  dlqDepth(): number | null;
  /** Per topic, the Kafka timestamp (ms) of the oldest record held unsettled. */
  oldestUnsettled(): ReadonlyMap<string, number>;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The pusher's instruments. Labels are bounded: the subscriber (one per process), its own topics
 * and tiers, outcome and status classes, dead-letter reasons; never event ids or URLs.
 */
export class PusherMetrics implements DeliveryMetrics {
  readonly #subscriber: string;
  readonly #attempts: Counter;
  readonly #records: Counter;
  readonly #deadLetters: Counter;
  readonly #attemptDuration: Histogram;
  readonly #limiterWait: Histogram;

  constructor(meter: Meter, subscriber: string, topics: SubscriberTopicSet, sources: PusherGaugeSources) {
    this.#subscriber = subscriber;
    // Names carry their unit: this Prometheus exporter does not append it.
    this.#attempts = meter.createCounter('hookstream.pusher.deliveries', {
      description: 'HTTP delivery attempts, by outcome class (ack, retryable, terminal) and status class',
      unit: '{attempt}',
    });
    this.#records = meter.createCounter('hookstream.pusher.records', {
      description:
        'Consumed records by what became of them: delivered, retry-scheduled, dead-lettered, filtered, abandoned',
      unit: '{record}',
    });
    this.#deadLetters = meter.createCounter('hookstream.pusher.dead_letters', {
      description: 'Records written to the DLQ, by reason (terminal, exhausted, expired, poison)',
      unit: '{record}',
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

    const lag = meter.createObservableGauge('hookstream.pusher.consumer.lag', {
      description: "Records above the subscriber's ledger (high watermark − committed offset), per topic",
      unit: '{record}',
    });
    const age = meter.createObservableGauge('hookstream.pusher.oldest_unsettled.age.seconds', {
      description:
        'Age of the oldest record this pusher holds unsettled (in flight or waiting until due), per topic',
      unit: 's',
    });
    const tierDepth = meter.createObservableGauge('hookstream.pusher.retry_tier.depth', {
      description: 'Records waiting in each retry tier (its lag)',
      unit: '{record}',
    });
    const dlqDepth = meter.createObservableGauge('hookstream.pusher.dlq.depth', {
      description: "Records held in the subscriber's DLQ",
      unit: '{record}',
    });
    const allTopics = [topics.events, ...topics.tiers];
    meter.addBatchObservableCallback(
      (result) => {
        const lags = sources.lag();
        const oldest = sources.oldestUnsettled();
        const now = Date.now();
        for (const topic of allTopics) {
          const l = lags.get(topic);
          if (l !== undefined) result.observe(lag, l, { subscriber, topic });
          const ts = oldest.get(topic);
          result.observe(age, ts === undefined ? 0 : Math.max(0, (now - ts) / 1000), { subscriber, topic });
        }
        topics.tiers.forEach((topic, i) => {
          const l = lags.get(topic);
          if (l !== undefined) result.observe(tierDepth, l, { subscriber, tier: String(i + 1) });
        });
        const dlq = sources.dlqDepth();
        if (dlq !== null) result.observe(dlqDepth, dlq, { subscriber });
      },
      [lag, age, tierDepth, dlqDepth],
    );
  }

  attempted(outcomeClass: OutcomeClass, status: number | null, durationMs: number): void {
    const status_class = statusClass(status);
    this.#attempts.add(1, { subscriber: this.#subscriber, outcome_class: outcomeClass, status_class });
    this.#attemptDuration.record(durationMs / 1000, { subscriber: this.#subscriber, status_class });
  }

  limiterWaited(ms: number): void {
    this.#limiterWait.record(ms / 1000, { subscriber: this.#subscriber });
  }

  ended(outcome: RecordOutcome, deadLetterReason?: string): void {
    this.#records.add(1, { subscriber: this.#subscriber, outcome });
    if (deadLetterReason !== undefined)
      this.#deadLetters.add(1, { subscriber: this.#subscriber, reason: deadLetterReason });
  }
}
