import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttemptLogEntry,
  CE_HEADER,
  type DeadLetterReason,
  dlqTopicName,
  type RecordLocation,
  RetryState,
  readHsHeaders,
  retryTopicName,
  type SubscriberDefinition,
  subscriberGroupId,
  TRACEPARENT_HEADER,
} from '@hookstream/contracts';
import {
  buildBody,
  checkAge,
  classify,
  type DeliveryTrail,
  type DestinationLimiter,
  decide,
  deliveryIdOf,
  type HttpClient,
  POLICY_VERSION,
} from '@hookstream/delivery';
import type { ConsumedRecord, HandlerOutcome, LogFn } from '@hookstream/kafka';
import { ATTR, deliveryTracer, type HttpTarget, httpTarget, ProcessSpan } from '@hookstream/telemetry';
import type { Tracer } from '@opentelemetry/api';
import type { DeliveryMetrics, RecordOutcome } from './delivery-metrics.ts';
import type { OutcomeRouter } from './outcome-router.ts';
import type { RecordDecoder } from './record-decoder.ts';

export interface DeliveryCounts {
  acknowledged: number;
  filtered: number;
  retries: number;
  deadLettered: number;
  poison: number;
  abandoned: number;
}

export interface SubscriberDeliveryDeps {
  readonly definition: SubscriberDefinition;
  /** The events topic; records of any other topic come from the subscriber's retry tiers. */
  readonly eventsTopic: string;
  readonly decoder: RecordDecoder;
  readonly client: HttpClient;
  readonly limiter: DestinationLimiter;
  readonly router: OutcomeRouter;
  readonly log: LogFn;
  /** Where each step goes for `hookstream ledger`; optional so benchmarks can leave it out. */
  readonly attemptLog?: { write(entry: AttemptLogEntry): void };
  /** Injected for tests of jitter; Math.random otherwise. */
  readonly random?: () => number;
  /** Instruments for /metrics; none when the process serves no metrics. */
  readonly metrics?: DeliveryMetrics;
  /** Where the delivery spans go; the global tracer (a no-op until tracing starts) otherwise. */
  readonly tracer?: Tracer;
}

/** What became of one record, for its process span, its metrics and its log line. */
interface RecordEnd {
  outcome: RecordOutcome;
  /** The attempt's outcome reason, or the dead-letter reason. */
  reason?: string;
  deadLetterReason?: DeadLetterReason;
}

const REGISTRY_RETRY_MS = 1000;

/** The delivery so far, from the tier record's headers (a fresh delivery has none). */
interface Progress {
  readonly attempts: number;
  readonly firstAttemptAtMs: number | null;
  readonly origin: RecordLocation;
}

/**
 * One record, start to settlement: filter by type, decode, deliver through the destination's
 * limiter, classify, and act on the policy's decision: settle on an ACK, hand the record to a
 * retry tier or the DLQ through the outcome router otherwise. One attempt per consumed record:
 * a retry is a new record in a tier, consumed again when due.
 */
export class SubscriberDelivery {
  readonly counts: DeliveryCounts = {
    acknowledged: 0,
    filtered: 0,
    retries: 0,
    deadLettered: 0,
    poison: 0,
    abandoned: 0,
  };
  readonly #deps: SubscriberDeliveryDeps;
  readonly #allTypes: boolean;
  readonly #types: ReadonlySet<string>;
  readonly #random: () => number;
  readonly #tracer: Tracer;
  readonly #target: HttpTarget;
  readonly #group: string;
  readonly #tiers: ReadonlyMap<string, number>;
  readonly #dlqTopic: string;

  constructor(deps: SubscriberDeliveryDeps) {
    this.#deps = deps;
    this.#allTypes = deps.definition.eventTypes.includes('*');
    this.#types = new Set(deps.definition.eventTypes);
    this.#random = deps.random ?? Math.random;
    this.#tracer = deps.tracer ?? deliveryTracer();
    this.#target = httpTarget(new URL(deps.definition.url));
    this.#group = subscriberGroupId(deps.definition.name);
    this.#tiers = new Map(
      deps.definition.retry.delaysMs.map((_, i) => [retryTopicName(deps.definition.name, i + 1), i + 1]),
    );
    this.#dlqTopic = dlqTopicName(deps.definition.name);
  }

  readonly handle = async (record: ConsumedRecord, signal: AbortSignal): Promise<HandlerOutcome> => {
    const span = new ProcessSpan(this.#tracer, record, {
      consumerGroup: this.#group,
      subscriber: this.#deps.definition.name,
      eventId: record.headers[CE_HEADER.id],
      eventType: record.headers[CE_HEADER.type],
      tier: this.#tiers.get(record.topic),
    });
    const end: RecordEnd = { outcome: 'abandoned' };
    try {
      // Active while the record is handled, so every log line about it carries its trace id.
      const outcome = await span.run(() => this.#handle(record, signal, span, end));
      if (outcome === 'abandoned') {
        this.counts.abandoned++;
        end.outcome = 'abandoned';
      }
      return outcome;
    } finally {
      span.end(end.outcome, end.reason, end.outcome === 'dead-lettered');
      this.#deps.metrics?.ended(end.outcome, end.deadLetterReason);
    }
  };

  async #handle(
    record: ConsumedRecord,
    signal: AbortSignal,
    span: ProcessSpan,
    end: RecordEnd,
  ): Promise<HandlerOutcome> {
    const { definition } = this.#deps;
    const here = locationOf(record);
    const type = record.headers[CE_HEADER.type];
    const eventId = record.headers[CE_HEADER.id];
    const progress = this.#progress(record);
    if (progress === null)
      return this.#poison(record, here, eventId, 'unreadable retry headers', signal, span, end);
    if (type !== undefined && !this.#allTypes && !this.#types.has(type)) {
      this.counts.filtered++;
      end.outcome = 'filtered';
      if (eventId !== undefined) this.#logStep(eventId, 'filtered', 0, progress.origin, here, {});
      return 'settled';
    }
    const decoded = await this.#decode(record, signal);
    if (decoded === null) return 'abandoned';
    if (decoded.kind === 'poison' || eventId === undefined || type === undefined) {
      const detail =
        decoded.kind === 'poison'
          ? decoded.detail
          : `missing ${eventId === undefined ? CE_HEADER.id : CE_HEADER.type} header`;
      return this.#poison(record, progress.origin, eventId, detail, signal, span, end);
    }
    const occurredAt = record.headers[CE_HEADER.time] ?? new Date(record.timestampMs).toISOString();
    const parsedOccurredAt = Date.parse(occurredAt);
    const occurredAtMs = Number.isNaN(parsedOccurredAt) ? record.timestampMs : parsedOccurredAt;
    const trail = (attempts: number, lastAttemptAtMs: number | null): DeliveryTrail => ({
      eventId,
      subscriber: definition.name,
      attempts,
      firstAttemptAtMs: progress.firstAttemptAtMs ?? lastAttemptAtMs,
      lastAttemptAtMs,
      classification: null,
      excerpt: '',
      policyVersion: POLICY_VERSION,
      origin: progress.origin,
      source: here,
    });

    const expired = checkAge({ occurredAtMs, nowMs: Date.now(), retry: definition.retry });
    if (expired) {
      const last = progress.attempts > 0 ? Date.now() : null;
      return this.#deadLetter(record, trail(progress.attempts, last), 'expired', signal, span, end);
    }

    const attempt = progress.attempts + 1;
    span.attempt = attempt;
    const body = buildBody(decoded.data, {
      eventId,
      subscriptionId: definition.name,
      deliveryId: deliveryIdOf(definition.name, eventId),
      type,
      occurredAt,
      attempt,
    });
    const traceparent = record.headers[TRACEPARENT_HEADER];
    const queuedAt = performance.now();
    const attempted = await this.#deps.limiter.schedule(
      () => this.#attempt(eventId, body, traceparent, span, queuedAt),
      signal,
    );
    if (attempted === null) return 'abandoned';
    const { report, classification, now, durationMs } = attempted;
    const status = classification.status ?? undefined;
    end.reason = classification.reason;
    if (classification.outcome === 'ack') {
      this.counts.acknowledged++;
      end.outcome = 'delivered';
      this.#logStep(eventId, 'delivered', attempt, progress.origin, here, {
        outcome: classification.reason,
        durationMs,
        ...(status === undefined ? {} : { status }),
      });
      // Debug: one line per delivery is too many for a busy subscriber at info.
      this.#deps.log('debug', 'delivered', {
        event_id: eventId,
        attempt,
        outcome: classification.reason,
        status: classification.status,
        duration_ms: Math.round(durationMs),
        trace_id: span.traceId,
      });
      return 'settled';
    }
    const decision = decide({
      classification,
      attempt,
      occurredAtMs,
      nowMs: now,
      retry: definition.retry,
      random: this.#random(),
    });
    const failed: DeliveryTrail = {
      ...trail(attempt, now),
      classification,
      excerpt: report.kind === 'connection-error' ? report.code : report.excerpt,
      policyVersion: decision.policyVersion,
    };
    const fields = {
      outcome: classification.reason,
      durationMs,
      ...(status === undefined ? {} : { status }),
    };
    if (decision.action === 'ack') {
      end.outcome = 'delivered';
      return 'settled';
    }
    if (decision.action === 'dead-letter') {
      return this.#deadLetter(record, failed, decision.reason, signal, span, end, fields);
    }
    const dueAtMs = now + decision.delayMs;
    const tierTopic = retryTopicName(definition.name, decision.tier);
    const send = span.send(tierTopic, { [ATTR.retryTier]: decision.tier });
    const routed = await this.#deps.router.retry(
      record,
      failed,
      decision,
      dueAtMs,
      signal,
      send.traceHeaders,
    );
    send.end(routed);
    if (routed === 'settled') {
      this.counts.retries++;
      end.outcome = 'retry-scheduled';
      this.#logStep(eventId, 'retry-scheduled', attempt, progress.origin, here, {
        ...fields,
        tier: decision.tier,
        dueAt: new Date(dueAtMs).toISOString(),
      });
      this.#deps.log('info', 'retry scheduled', {
        event_id: eventId,
        attempt,
        outcome: classification.reason,
        status: classification.status,
        tier: decision.tier,
        due_at: new Date(dueAtMs).toISOString(),
        trace_id: span.traceId,
      });
    }
    return routed;
  }

  /** Null when a tier record's headers cannot be read: the record is then poison. */
  #progress(record: ConsumedRecord): Progress | null {
    if (record.topic === this.#deps.eventsTopic)
      return { attempts: 0, firstAttemptAtMs: null, origin: locationOf(record) };
    const parsed = RetryState.safeParse(readHsHeaders(record.headers));
    if (!parsed.success) return null;
    const { attempts, firstAttemptAt, origin } = parsed.data;
    return {
      attempts,
      firstAttemptAtMs: firstAttemptAt === undefined ? null : Date.parse(firstAttemptAt),
      origin: origin ?? locationOf(record),
    };
  }

  /** The contract table's last row: an undecodable record is dead-lettered at once. */
  #poison(
    record: ConsumedRecord,
    origin: RecordLocation,
    eventId: string | undefined,
    detail: string,
    signal: AbortSignal,
    span: ProcessSpan,
    end: RecordEnd,
  ): Promise<HandlerOutcome> {
    this.counts.poison++;
    const trail: DeliveryTrail = {
      eventId: eventId ?? null,
      subscriber: this.#deps.definition.name,
      attempts: 0,
      firstAttemptAtMs: null,
      lastAttemptAtMs: null,
      classification: null,
      excerpt: detail,
      policyVersion: POLICY_VERSION,
      origin,
      source: locationOf(record),
    };
    return this.#deadLetter(record, trail, 'poison', signal, span, end);
  }

  async #deadLetter(
    record: ConsumedRecord,
    trail: DeliveryTrail,
    reason: DeadLetterReason,
    signal: AbortSignal,
    span: ProcessSpan,
    end: RecordEnd,
    fields: Omit<Partial<AttemptLogEntry>, 'eventId'> = {},
  ): Promise<HandlerOutcome> {
    const send = span.send(this.#dlqTopic, { [ATTR.deadLetterReason]: reason });
    const routed = await this.#deps.router.deadLetter(record, trail, reason, signal, send.traceHeaders);
    send.end(routed);
    if (routed !== 'settled') return routed;
    this.counts.deadLettered++;
    end.outcome = 'dead-lettered';
    end.reason = reason;
    end.deadLetterReason = reason;
    if (trail.eventId !== null)
      this.#logStep(trail.eventId, 'dead-lettered', trail.attempts, trail.origin, trail.source, {
        ...fields,
        deadLetterReason: reason,
      });
    this.#deps.log('warn', 'dead-lettered', {
      event_id: trail.eventId,
      reason,
      attempt: trail.attempts,
      outcome: trail.classification?.reason ?? null,
      status: trail.classification?.status ?? null,
      from: `${record.topic}:${record.partition}:${record.offset}`,
      trace_id: span.traceId,
    });
    return 'settled';
  }

  #logStep(
    eventId: string,
    step: AttemptLogEntry['step'],
    attempt: number,
    origin: RecordLocation,
    source: RecordLocation,
    fields: Omit<Partial<AttemptLogEntry>, 'eventId' | 'step' | 'attempt' | 'origin' | 'source'>,
  ): void {
    this.#deps.attemptLog?.write({
      eventId,
      subscriber: this.#deps.definition.name,
      step,
      attempt,
      at: new Date().toISOString(),
      origin,
      source,
      policyVersion: POLICY_VERSION,
      ...fields,
    });
  }

  /**
   * One request, classified inside the limiter's slot: a 429 pauses the destination before the
   * slot passes to the next request, which would otherwise go out first.
   */
  async #attempt(
    eventId: string,
    body: string,
    recordTraceparent: string | undefined,
    span: ProcessSpan,
    queuedAt: number,
  ) {
    const started = performance.now();
    const waited = started - queuedAt;
    span.limiterWait(waited);
    this.#deps.metrics?.limiterWaited(waited);
    // The span context is passed explicitly: the limiter may run this job from another job's
    // async context. The request carries the HTTP span's context, or with tracing off the
    // record's own, so the endpoint can still join the event's trace.
    const http = span.http('POST', this.#target);
    const report = await this.#deps.client.send({
      eventId,
      body,
      traceparent: http.traceparent ?? recordTraceparent,
    });
    if (report.kind === 'response') http.responded(report.status);
    else http.failed(report.kind === 'timeout' ? 'timeout' : report.code);
    const durationMs = performance.now() - started;
    const now = Date.now();
    const classification = classify(report, now);
    this.#deps.metrics?.attempted(classification.outcome, classification.status, durationMs);
    if (classification.retryAfterMs !== null) this.#deps.limiter.pauseFor(classification.retryAfterMs);
    return { report, classification, now, durationMs };
  }

  /** Null when stopped while the registry was unreachable. */
  async #decode(record: ConsumedRecord, signal: AbortSignal) {
    for (;;) {
      const result = await this.#deps.decoder.decode(record.value);
      if (result.kind !== 'unavailable') return result;
      this.#deps.log('warn', 'cannot decode yet; the record waits', {
        offset: record.offset,
        detail: result.detail,
      });
      try {
        await sleep(REGISTRY_RETRY_MS, undefined, { signal });
      } catch {
        return null;
      }
    }
  }
}

function locationOf(record: ConsumedRecord): RecordLocation {
  return { topic: record.topic, partition: record.partition, offset: record.offset };
}
