import { setTimeout as sleep } from 'node:timers/promises';
import type { DeadLetterReason } from '@hookstream/contracts';
import type { Classification, Decision } from '@hookstream/delivery';
import type { ConsumedRecord, LogFn } from '@hookstream/kafka';

/** Everything known about a record whose delivery did not end in an ACK. */
export interface FailedDelivery {
  readonly record: ConsumedRecord;
  readonly eventId: string | null;
  readonly attempt: number;
  readonly firstAttemptAtMs: number | null;
  /** Null for a poison record, which never reached the endpoint. */
  readonly classification: Classification | null;
  /** A short, bounded start of the response body (never more). */
  readonly excerpt: string;
  readonly detail?: string;
}

export type RetryDecision = Extract<Decision, { action: 'retry' }>;

/**
 * What becomes of a record after a failed attempt. The ledger rule binds every implementation:
 * return `settled` only once the record's future is durable elsewhere.
 */
export interface OutcomeRouter {
  /**
   * A retryable outcome with attempts left. `attempt-now`: the caller makes attempt
   * decision.nextAttempt itself. `settled`: the retry was handed on durably (a retry tier topic).
   * `abandoned`: the work was stopped first; the record stays unsettled.
   */
  retry(
    failed: FailedDelivery,
    decision: RetryDecision,
    signal: AbortSignal,
  ): Promise<'attempt-now' | 'settled' | 'abandoned'>;
  /** A terminal, exhausted, expired or poison record. */
  deadLetter(
    failed: FailedDelivery,
    reason: DeadLetterReason,
    policyVersion: string,
  ): Promise<'settled' | 'abandoned'>;
}

/**
 * Until retry tiers and the DLQ exist (issue 5): retries wait in place, holding the record
 * unsettled, and dead letters are logged as pending and settled so the partition keeps moving.
 * Issue 5 replaces this with a router that produces to hookstream.sub.<name>.retry.<n> / .dlq
 * and settles after the broker's ack.
 */
export class InPlaceOutcomeRouter implements OutcomeRouter {
  readonly #log: LogFn;
  readonly #subscriber: string;

  constructor(subscriber: string, log: LogFn) {
    this.#subscriber = subscriber;
    this.#log = log;
  }

  async retry(
    failed: FailedDelivery,
    decision: RetryDecision,
    signal: AbortSignal,
  ): Promise<'attempt-now' | 'abandoned'> {
    this.#log('warn', 'delivery failed; retrying in place', {
      ...evidence(this.#subscriber, failed),
      delayMs: decision.delayMs,
      nextAttempt: decision.nextAttempt,
      policyVersion: decision.policyVersion,
    });
    try {
      await sleep(decision.delayMs, undefined, { signal });
      return 'attempt-now';
    } catch {
      return 'abandoned';
    }
  }

  async deadLetter(
    failed: FailedDelivery,
    reason: DeadLetterReason,
    policyVersion: string,
  ): Promise<'settled'> {
    this.#log(
      'error',
      'dead letter pending: no DLQ producer yet (issue 5); settling so the partition moves on',
      {
        ...evidence(this.#subscriber, failed),
        reason,
        policyVersion,
      },
    );
    return 'settled';
  }
}

function evidence(subscriber: string, f: FailedDelivery): Record<string, unknown> {
  return {
    subscriber,
    eventId: f.eventId,
    attempt: f.attempt,
    outcome: f.classification?.reason ?? 'poison',
    status: f.classification?.status ?? null,
    excerpt: f.excerpt,
    ...(f.detail ? { detail: f.detail } : {}),
    topic: f.record.topic,
    partition: f.record.partition,
    offset: f.record.offset,
  };
}
