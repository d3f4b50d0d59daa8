import type { DeadLetterReason } from '@hookstream/contracts';
import { type Classification, type DeliveryTrail, decide, POLICY_VERSION } from '@hookstream/delivery';
import { ATTR } from '@hookstream/telemetry';
import type { Attributes } from '@opentelemetry/api';
import type { AttemptSummary, DeliveryOutcome, RecordContext } from './delivery-outcome.ts';
import type { Deliverable } from './event-admission.ts';
import type { OutcomeRouter } from './outcome-router.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

/** How an attempt ended, as the policy and the evidence need it. */
export interface AttemptEnd {
  readonly classification: Classification;
  /** When it ended (epoch ms). */
  readonly now: number;
  /** The evidence kept with a retry or a dead letter: an answer's start, an error code. */
  readonly excerpt: string;
}

export interface RecordSettlerDeps {
  readonly topology: SubscriberTopology;
  readonly router: OutcomeRouter;
  /** Injected for tests of jitter; Math.random otherwise. */
  readonly random?: () => number;
}

const ABANDONED: DeliveryOutcome = { kind: 'abandoned' };

/**
 * What the delivery policy says after an attempt, made durable: acknowledged, handed to a retry
 * tier, or dead-lettered, through the outcome router, each hand-off under its span. Shared by
 * push (an HTTP answer) and pull (an ack, a nack, an expired lease).
 */
export class RecordSettler {
  readonly #topology: SubscriberTopology;
  readonly #router: OutcomeRouter;
  readonly #random: () => number;

  constructor(deps: RecordSettlerDeps) {
    this.#topology = deps.topology;
    this.#router = deps.router;
    this.#random = deps.random ?? Math.random;
  }

  /** The policy's decision on an attempt, as it would be acted on now. */
  decide(event: Deliverable, end: AttemptEnd, attempt: AttemptSummary) {
    return decide({
      classification: end.classification,
      attempt: attempt.number,
      occurredAtMs: event.occurredAtMs,
      nowMs: end.now,
      retry: this.#topology.definition.retry,
      random: this.#random(),
    });
  }

  /** Acknowledge, a retry tier, or the DLQ, as the policy says. */
  async settle(
    ctx: RecordContext,
    event: Deliverable,
    end: AttemptEnd,
    attempt: AttemptSummary,
  ): Promise<DeliveryOutcome> {
    const { classification, now } = end;
    if (classification.outcome === 'ack') return { kind: 'delivered', attempt };
    const decision = this.decide(event, end, attempt);
    if (decision.action === 'ack') return { kind: 'delivered', attempt };
    const failed = this.failedTrail(ctx, event, end, attempt, decision.policyVersion);
    if (decision.action === 'dead-letter') return this.deadLetter(ctx, failed, decision.reason, attempt);

    const dueAtMs = now + decision.delayMs;
    const tierTopic = this.#topology.tierTopics[decision.tier - 1] ?? '';
    const send = ctx.span.send(tierTopic, { [ATTR.retryTier]: decision.tier });
    const routed = await this.#router.retry(
      ctx.record,
      failed,
      decision,
      dueAtMs,
      ctx.signal,
      send.traceHeaders,
    );
    send.end(routed);
    if (routed !== 'settled') return { kind: 'abandoned', attempt };
    return { kind: 'retry-scheduled', attempt, tier: decision.tier, dueAtMs };
  }

  /** The trail of a failed attempt: its classification and evidence. */
  failedTrail(
    ctx: RecordContext,
    event: Deliverable,
    end: AttemptEnd,
    attempt: AttemptSummary,
    policyVersion: string,
  ): DeliveryTrail {
    return {
      ...this.trail(ctx, event, attempt.number, end.now),
      classification: end.classification,
      excerpt: end.excerpt,
      policyVersion,
    };
  }

  trail(
    ctx: RecordContext,
    event: Deliverable,
    attempts: number,
    lastAttemptAtMs: number | null,
  ): DeliveryTrail {
    return {
      eventId: event.eventId,
      subscriber: this.#topology.name,
      attempts,
      firstAttemptAtMs: event.progress.firstAttemptAtMs ?? lastAttemptAtMs,
      lastAttemptAtMs,
      classification: null,
      excerpt: '',
      policyVersion: POLICY_VERSION,
      origin: event.progress.origin,
      source: ctx.here,
    };
  }

  /** The contract table's last row: an undecodable record is dead-lettered at once. */
  poison(ctx: RecordContext, detail: string): Promise<DeliveryOutcome> {
    const trail: DeliveryTrail = {
      eventId: ctx.eventId ?? null,
      subscriber: this.#topology.name,
      attempts: 0,
      firstAttemptAtMs: null,
      lastAttemptAtMs: null,
      classification: null,
      excerpt: detail,
      policyVersion: POLICY_VERSION,
      origin: ctx.origin,
      source: ctx.here,
    };
    return this.deadLetter(ctx, trail, 'poison');
  }

  async deadLetter(
    ctx: RecordContext,
    trail: DeliveryTrail,
    reason: DeadLetterReason,
    attempt?: AttemptSummary,
  ): Promise<DeliveryOutcome> {
    // Always recorded, even when the record's own span is not (retry-sampling.ts): a dead letter
    // decided on an unsampled first attempt has this span alone, so it says why (the answer's
    // outcome too: `terminal` alone does not say a 400 from a 410).
    const attributes: Attributes = { [ATTR.deadLetterReason]: reason };
    if (trail.classification !== null) attributes[ATTR.outcomeReason] = trail.classification.reason;
    if (trail.classification?.status != null) attributes[ATTR.httpStatus] = trail.classification.status;
    const send = ctx.span.send(this.#topology.dlqTopic, attributes);
    const routed = await this.#router.deadLetter(ctx.record, trail, reason, ctx.signal, send.traceHeaders);
    send.end(routed);
    if (routed !== 'settled') return attempt ? { kind: 'abandoned', attempt } : ABANDONED;
    return attempt
      ? { kind: 'dead-lettered', reason, trail, attempt }
      : { kind: 'dead-lettered', reason, trail };
  }
}
