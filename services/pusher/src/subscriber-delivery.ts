import { setTimeout as sleep } from 'node:timers/promises';
import { CE_HEADER, type SubscriberDefinition, TRACEPARENT_HEADER } from '@hookstream/contracts';
import {
  type AttemptReport,
  buildBody,
  classify,
  type DestinationLimiter,
  decide,
  deliveryIdOf,
  type HttpClient,
  POLICY_VERSION,
} from '@hookstream/delivery';
import type { ConsumedRecord, HandlerOutcome, LogFn } from '@hookstream/kafka';
import type { FailedDelivery, OutcomeRouter } from './outcome-router.ts';
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
  readonly decoder: RecordDecoder;
  readonly client: HttpClient;
  readonly limiter: DestinationLimiter;
  readonly router: OutcomeRouter;
  readonly log: LogFn;
  /** Injected for tests of jitter; Math.random otherwise. */
  readonly random?: () => number;
}

const REGISTRY_RETRY_MS = 1000;

/**
 * One record, start to settlement: filter by type, decode, deliver through the destination's
 * limiter, classify, and act on the policy's decision through the outcome router.
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
    const { definition, router } = this.#deps;
    const type = record.headers[CE_HEADER.type];
    if (type !== undefined && !this.#allTypes && !this.#types.has(type)) {
      this.counts.filtered++;
      return 'settled';
    }
    const eventId = record.headers[CE_HEADER.id];
    const decoded = await this.#decode(record, signal);
    if (decoded === null) return 'abandoned';
    if (decoded.kind === 'poison' || eventId === undefined || type === undefined) {
      this.counts.poison++;
      const detail =
        decoded.kind === 'poison'
          ? decoded.detail
          : `missing ${eventId === undefined ? CE_HEADER.id : CE_HEADER.type} header`;
      const failed: FailedDelivery = {
        record,
        eventId: eventId ?? null,
        attempt: 0,
        firstAttemptAtMs: null,
        classification: null,
        excerpt: '',
        detail,
      };
      // The contract table's last row: an undecodable record is dead-lettered at once.
      return router.deadLetter(failed, 'poison', POLICY_VERSION);
    }
    const occurredAt = record.headers[CE_HEADER.time] ?? new Date(record.timestampMs).toISOString();
    const occurredAtMs = Date.parse(occurredAt);
    const meta = {
      eventId,
      subscriptionId: definition.name,
      deliveryId: deliveryIdOf(definition.name, eventId),
      type,
      occurredAt,
    };
    const traceparent = record.headers[TRACEPARENT_HEADER];
    let firstAttemptAtMs: number | null = null;
    for (let attempt = 1; ; ) {
      if (signal.aborted) return 'abandoned';
      const body = buildBody(decoded.data, { ...meta, attempt });
      const attempted = await this.#deps.limiter.schedule(
        () => this.#attempt(eventId, body, traceparent),
        signal,
      );
      if (attempted === null) return 'abandoned';
      const { report, classification, now } = attempted;
      firstAttemptAtMs ??= now;
      if (classification.outcome === 'ack') {
        this.counts.acknowledged++;
        return 'settled';
      }
      const decision = decide({
        classification,
        attempt,
        occurredAtMs: Number.isNaN(occurredAtMs) ? record.timestampMs : occurredAtMs,
        nowMs: now,
        retry: definition.retry,
        random: this.#random(),
      });
      const failed = failure(record, eventId, attempt, firstAttemptAtMs, classification, report);
      if (decision.action === 'dead-letter') {
        this.counts.deadLettered++;
        return router.deadLetter(failed, decision.reason, decision.policyVersion);
      }
      if (decision.action === 'ack') return 'settled';
      this.counts.retries++;
      const routed = await router.retry(failed, decision, signal);
      if (routed !== 'attempt-now') return routed;
      attempt = decision.nextAttempt;
    }
  }

  /**
   * One request, classified inside the limiter's slot: a 429 pauses the destination before the
   * slot passes to the next request, which would otherwise go out first.
   */
  async #attempt(eventId: string, body: string, traceparent: string | undefined) {
    const report = await this.#deps.client.send({ eventId, body, traceparent });
    const now = Date.now();
    const classification = classify(report, now);
    if (classification.retryAfterMs !== null) this.#deps.limiter.pauseFor(classification.retryAfterMs);
    return { report, classification, now };
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

function failure(
  record: ConsumedRecord,
  eventId: string,
  attempt: number,
  firstAttemptAtMs: number,
  classification: FailedDelivery['classification'],
  report: AttemptReport,
): FailedDelivery {
  const detail = report.kind === 'connection-error' ? report.code : undefined;
  return {
    record,
    eventId,
    attempt,
    firstAttemptAtMs,
    classification,
    excerpt: report.excerpt,
    ...(detail ? { detail } : {}),
  };
}
