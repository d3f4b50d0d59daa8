import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttemptLogEntry,
  CE_HEADER,
  type DeadLetterReason,
  type RecordLocation,
  RetryState,
  readHsHeaders,
  type SubscriberDefinition,
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

  constructor(deps: SubscriberDeliveryDeps) {
    this.#deps = deps;
    this.#allTypes = deps.definition.eventTypes.includes('*');
    this.#types = new Set(deps.definition.eventTypes);
    this.#random = deps.random ?? Math.random;
  }

  readonly handle = async (record: ConsumedRecord, signal: AbortSignal): Promise<HandlerOutcome> => {
    const outcome = await this.#handle(record, signal);
    if (outcome === 'abandoned') this.counts.abandoned++;
    return outcome;
  };

  async #handle(record: ConsumedRecord, signal: AbortSignal): Promise<HandlerOutcome> {
    const { definition } = this.#deps;
    const here = locationOf(record);
    const type = record.headers[CE_HEADER.type];
    const eventId = record.headers[CE_HEADER.id];
    const progress = this.#progress(record);
    if (progress === null) return this.#poison(record, here, eventId, 'unreadable retry headers', signal);
    if (type !== undefined && !this.#allTypes && !this.#types.has(type)) {
      this.counts.filtered++;
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
      return this.#poison(record, progress.origin, eventId, detail, signal);
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
      return this.#deadLetter(record, trail(progress.attempts, last), 'expired', signal);
    }

    const attempt = progress.attempts + 1;
    const body = buildBody(decoded.data, {
      eventId,
      subscriptionId: definition.name,
      deliveryId: deliveryIdOf(definition.name, eventId),
      type,
      occurredAt,
      attempt,
    });
    const traceparent = record.headers[TRACEPARENT_HEADER];
    const attempted = await this.#deps.limiter.schedule(
      () => this.#attempt(eventId, body, traceparent),
      signal,
    );
    if (attempted === null) return 'abandoned';
    const { report, classification, now, durationMs } = attempted;
    const status = classification.status ?? undefined;
    if (classification.outcome === 'ack') {
      this.counts.acknowledged++;
      this.#logStep(eventId, 'delivered', attempt, progress.origin, here, {
        outcome: classification.reason,
        durationMs,
        ...(status === undefined ? {} : { status }),
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
    if (decision.action === 'ack') return 'settled';
    if (decision.action === 'dead-letter') {
      return this.#deadLetter(record, failed, decision.reason, signal, fields);
    }
    const dueAtMs = now + decision.delayMs;
    const routed = await this.#deps.router.retry(record, failed, decision, dueAtMs, signal);
    if (routed === 'settled') {
      this.counts.retries++;
      this.#logStep(eventId, 'retry-scheduled', attempt, progress.origin, here, {
        ...fields,
        tier: decision.tier,
        dueAt: new Date(dueAtMs).toISOString(),
      });
      this.#deps.log('info', 'retry scheduled', {
        subscriber: definition.name,
        eventId,
        attempt,
        outcome: classification.reason,
        status: classification.status,
        tier: decision.tier,
        dueAt: new Date(dueAtMs).toISOString(),
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
    return this.#deadLetter(record, trail, 'poison', signal);
  }

  async #deadLetter(
    record: ConsumedRecord,
    trail: DeliveryTrail,
    reason: DeadLetterReason,
    signal: AbortSignal,
    fields: Omit<Partial<AttemptLogEntry>, 'eventId'> = {},
  ): Promise<HandlerOutcome> {
    const routed = await this.#deps.router.deadLetter(record, trail, reason, signal);
    if (routed !== 'settled') return routed;
    this.counts.deadLettered++;
    if (trail.eventId !== null)
      this.#logStep(trail.eventId, 'dead-lettered', trail.attempts, trail.origin, trail.source, {
        ...fields,
        deadLetterReason: reason,
      });
    this.#deps.log('warn', 'dead-lettered', {
      subscriber: trail.subscriber,
      eventId: trail.eventId,
      reason,
      attempts: trail.attempts,
      outcome: trail.classification?.reason ?? null,
      status: trail.classification?.status ?? null,
      from: `${record.topic}:${record.partition}:${record.offset}`,
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
  async #attempt(eventId: string, body: string, traceparent: string | undefined) {
    const started = performance.now();
    const report = await this.#deps.client.send({ eventId, body, traceparent });
    const durationMs = performance.now() - started;
    const now = Date.now();
    const classification = classify(report, now);
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
