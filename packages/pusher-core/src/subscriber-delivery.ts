import {
  DEFAULT_MAX_HOLD_MS,
  type RecordLocation,
  resolvePointer,
  TRACEPARENT_HEADER,
} from '@hookstream/contracts';
import {
  type AttemptReport,
  batchBody,
  buildBody,
  type Classification,
  checkAge,
  classify,
  deliveryIdOf,
  newBatchId,
} from '@hookstream/delivery';
import type { ConsumedRecord } from '@hookstream/kafka';
import { ATTR, deliveryTracer, ProcessSpan } from '@hookstream/telemetry';
import type { Attributes, Tracer } from '@opentelemetry/api';
import type { HandlerOutcome } from './consume/record-handler.ts';
import { type BatchMember, DeliveryBatcher, PendingBatch } from './delivery-batcher.ts';
import type { DeliveryObserver } from './delivery-observer.ts';
import type { AttemptSummary, DeliveryOutcome, RecordContext } from './delivery-outcome.ts';
import type { DeliveryHealth, HealthVerdict } from './endpoint-health.ts';
import { type Deliverable, EventAdmission, locationOf, waitFor } from './event-admission.ts';
import type { EventDecoder } from './event-decoder.ts';
import { readEventHeaders } from './event-headers.ts';
import type { OutcomeRouter } from './outcome-router.ts';
import { type AttemptEnd, RecordSettler } from './record-settler.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

/** The destination's limiter as the handler uses it (DestinationLimiter in production). */
export interface AttemptLimiter {
  /**
   * Runs the job when the destination's limits allow; null when the signal aborted first.
   * `tenant`: the event's, for a subscriber whose tenants take turns (TenantTurns).
   */
  schedule<T>(job: () => Promise<T>, signal: AbortSignal, tenant?: string): Promise<T | null>;
  /** The whole destination backs off (a 429's Retry-After). */
  pauseFor(ms: number): void;
}

/** The HTTP side as the handler uses it (HttpClient in production). */
export interface DeliveryClient {
  send(delivery: { eventId: string; body: string; traceparent?: string | undefined }): Promise<AttemptReport>;
}

export interface SubscriberDeliveryDeps {
  readonly topology: SubscriberTopology;
  readonly decoder: EventDecoder;
  readonly client: DeliveryClient;
  readonly limiter: AttemptLimiter;
  readonly router: OutcomeRouter;
  readonly observer: DeliveryObserver;
  /** The destination's breaker and auto-disable; without it every record goes (bench, tests). */
  readonly health?: DeliveryHealth;
  /** Injected for tests of jitter; Math.random otherwise. */
  readonly random?: () => number;
  /** Where the delivery spans go; the global tracer (a no-op until tracing starts) otherwise. */
  readonly tracer?: Tracer;
}

const ABANDONED: DeliveryOutcome = { kind: 'abandoned' };

/** No breaker: every record goes, every outcome as usual. */
const ALWAYS_HEALTHY: DeliveryHealth = {
  phase: 'closed',
  admit: async (signal) => (signal.aborted ? 'aborted' : 'go'),
  attempted: () => 'as-usual',
};

/** One request made and classified. */
interface Attempted {
  readonly report: AttemptReport;
  readonly classification: Classification;
  readonly now: number;
  readonly durationMs: number;
}

/** What a request's answer means for one event it carried. */
interface Sent {
  readonly attempted: Attempted;
  readonly verdict: HealthVerdict;
  /** The batch request's id; absent for a request of one event. */
  readonly batchId?: string;
}

/** An event waiting in a batch: its record and the body it would be sent alone with. */
interface Batched {
  readonly ctx: RecordContext;
  readonly body: string;
  readonly tenant: string | undefined;
}

/** A batch request made: its members in the order they went, and its answer. */
interface BatchAttempted {
  readonly members: readonly BatchMember<Batched, Sent>[];
  readonly batchId: string;
  readonly attempted: Attempted;
}

/**
 * One record, start to settlement: filter by type, decode, deliver through the destination's
 * limiter, classify, and act on the policy's decision: settle on an ACK, hand the record to a
 * retry tier or the DLQ through the outcome router otherwise. One attempt per consumed record:
 * a retry is a new record in a tier, consumed again when due; except in place, while the
 * breaker holds the record or, with `ordering: "strict"`, for the tier's delay. What happened
 * goes to the observer once, as a DeliveryOutcome.
 */
export class SubscriberDelivery {
  readonly #deps: SubscriberDeliveryDeps;
  readonly #topology: SubscriberTopology;
  readonly #random: () => number;
  readonly #tracer: Tracer;
  readonly #health: DeliveryHealth;
  readonly #admission: EventAdmission;
  readonly #settler: RecordSettler;
  /** With a definition's `batch`: where events wait for the request that carries them. */
  readonly #batcher: DeliveryBatcher<Batched, Sent> | null;

  constructor(deps: SubscriberDeliveryDeps) {
    this.#deps = deps;
    this.#health = deps.health ?? ALWAYS_HEALTHY;
    this.#topology = deps.topology;
    this.#random = deps.random ?? Math.random;
    this.#tracer = deps.tracer ?? deliveryTracer();
    this.#admission = new EventAdmission(deps);
    this.#settler = new RecordSettler({ ...deps, random: this.#random });
    const batch = deps.topology.definition.batch;
    this.#batcher =
      batch === undefined ? null : new DeliveryBatcher(batch, (pending) => void this.#requestBatch(pending));
  }

  readonly handle = async (record: ConsumedRecord, signal: AbortSignal): Promise<HandlerOutcome> => {
    const here = locationOf(record);
    const { eventId, type, tenant, problem } = readEventHeaders(record.headers);
    const span = new ProcessSpan(this.#tracer, record, {
      consumerGroup: this.#topology.groupId,
      subscriber: this.#topology.name,
      eventId,
      eventType: type,
      tenant,
      tier: this.#topology.tierOf(record.topic),
      keyInClear: this.#topology.definition.keysInTraces,
    });
    const ctx: RecordContext = { record, signal, span, here, eventId, type, tenant, origin: here };
    let step: DeliveryOutcome = ABANDONED;
    try {
      // Active while the record is handled, so every log line about it carries its trace id.
      step = await span.run(() => this.#handle(ctx, problem, tenant));
      return step.kind === 'abandoned' ? 'abandoned' : 'settled';
    } finally {
      this.#deps.observer.recorded(ctx, step);
    }
  };

  /**
   * `headerProblem`: why the record's CloudEvents headers cannot be trusted (see readEventHeaders);
   * `tenant`: its `ce_tenant`, read with them.
   */
  async #handle(
    ctx: RecordContext,
    headerProblem: string | null,
    tenant: string | undefined,
  ): Promise<DeliveryOutcome> {
    const admission = await this.#admission.admit(ctx, headerProblem, tenant);
    if (admission.kind === 'filtered') return admission.by === undefined ? { kind: 'filtered' } : admission;
    if (admission.kind === 'stopped') return ABANDONED;
    if (admission.kind === 'poison') return this.#settler.poison(ctx, admission.detail);
    const { event } = admission;
    const { progress, occurredAtMs } = event;
    const retry = this.#topology.definition.retry;
    if (checkAge({ occurredAtMs, nowMs: Date.now(), retry })) {
      const last = progress.attempts > 0 ? Date.now() : null;
      return this.#settler.deadLetter(
        ctx,
        this.#settler.trail(ctx, event, progress.attempts, last),
        'expired',
      );
    }
    return this.#deliver(ctx, event);
  }

  /**
   * One attempt through the limiter, then what the policy says about its outcome. While the
   * destination's breaker is open the record waits in place first; a retryable failure with the
   * breaker open (a failed probe, or the failure that opened it) waits again instead of going to
   * a tier, so only the age ceiling can end the wait with a dead letter. Every request is an
   * attempt: one sent again after such a wait carries the next number, and a record whose wait
   * is cut short (a stop, a rejoin, a revoke) after an attempt is handed on by the policy with
   * that attempt's outcome instead of being left to start over at the same number.
   */
  async #deliver(ctx: RecordContext, event: Deliverable): Promise<DeliveryOutcome> {
    const retry = this.#topology.definition.retry;
    /** The last attempt this handling made, while the breaker held the record after it. */
    let failed: { attempted: Attempted; attempt: AttemptSummary } | null = null;
    let firstAttemptAtMs = event.progress.firstAttemptAtMs;
    const sofar = (): Deliverable => ({ ...event, progress: { ...event.progress, firstAttemptAtMs } });
    for (;;) {
      const made = failed?.attempt.number ?? event.progress.attempts;
      const admission = await this.#health.admit(ctx.signal, event.occurredAtMs + retry.maxAgeMs);
      if (admission === 'aborted') return this.#stopped(ctx, sofar(), failed);
      if (admission === 'expired') {
        const last = made > 0 ? Date.now() : null;
        return this.#settler.deadLetter(ctx, this.#settler.trail(ctx, sofar(), made, last), 'expired');
      }
      const number = made + 1;
      ctx.span.attempt = number;
      const sent = await this.#request(ctx, event, number, admission === 'probe');
      // Stopped before this attempt went out: the one before it still needs its outcome kept.
      if (sent === null) return this.#stopped(ctx, sofar(), failed);
      const { attempted, verdict, batchId } = sent;
      firstAttemptAtMs ??= attempted.now;
      const { classification } = attempted;
      const attempt = summaryOf(number, attempted, batchId);
      // Left below the ledger: delivered again from it once the subscriber is resumed.
      if (verdict === 'disable') return { kind: 'abandoned', attempt };
      if (verdict === 'wait') {
        failed = { attempted, attempt };
        continue;
      }
      // Without a wait, the trail's first attempt is this one (#trail's fallback).
      const current = failed === null ? event : sofar();
      if (this.#topology.definition.ordering === 'strict' && classification.outcome !== 'ack') {
        const held = await this.#holdInPlace(ctx, current, attempted, attempt);
        if (held === 'again') {
          failed = { attempted, attempt };
          continue;
        }
        if (held !== null) return held;
      }
      return this.#settler.settle(ctx, current, endOf(attempted), attempt);
    }
  }

  /**
   * One request carrying the event: alone, or with a definition's `batch` in a batch of its
   * group (the breaker's probe always alone). Null: stopped before the request went out.
   */
  async #request(
    ctx: RecordContext,
    event: Deliverable,
    number: number,
    probe: boolean,
  ): Promise<Sent | null> {
    const body = buildBody(event.data, {
      eventId: event.eventId,
      subscriptionId: this.#topology.name,
      deliveryId: deliveryIdOf(this.#topology.name, event.eventId),
      type: event.type,
      occurredAt: event.occurredAt,
      tenant: event.tenant,
      attempt: number,
    });
    if (this.#batcher !== null) {
      const item: Batched = { ctx, body, tenant: event.tenant };
      const bytes = Buffer.byteLength(body);
      // The breaker's probe, and an event's last attempt, go as a batch of one: a probe must be
      // one request, and an event whose companions failed it (one the endpoint cannot take)
      // gets a last try without them. Until then retries are batched again, so an outage's
      // retries cost no more requests than its first attempts did.
      const last = number > 1 && number >= this.#topology.definition.retry.maxAttempts;
      if (!probe && !last) return this.#batcher.add(this.#groupOf(ctx, event), item, bytes, ctx.signal);
      return new Promise((resolve, reject) => {
        const alone = new PendingBatch<Batched, Sent>([{ item, bytes, signal: ctx.signal, resolve, reject }]);
        void this.#requestBatch(alone, probe);
      });
    }
    const queuedAt = performance.now();
    const attempted = await this.#deps.limiter.schedule(
      () => this.#attempt(ctx, event.eventId, body, queuedAt, probe),
      ctx.signal,
      event.tenant,
    );
    if (attempted === null) return null;
    return { attempted, verdict: this.#health.attempted(attempted.classification, probe, event.eventId) };
  }

  /**
   * The event's batch group: its tenant, and the definition's `batch.groupBy` value within it. A
   * batch never mixes two tenants, whatever `groupBy` says, nor two values of `groupBy`.
   */
  #groupOf(ctx: RecordContext, event: Deliverable): string {
    const groupBy = this.#topology.definition.batch?.groupBy ?? 'tenant';
    const tenant = event.tenant === undefined ? '-' : `t:${event.tenant}`;
    if (groupBy === 'tenant') return tenant;
    if (groupBy === 'key') return `${tenant}|${ctx.record.key === null ? '-' : `k:${ctx.record.key}`}`;
    const value = resolvePointer(event.data, groupBy);
    return `${tenant}|${value === undefined ? '-' : `v:${JSON.stringify(value)}`}`;
  }

  /**
   * One batch request through the limiter (the rate limit counts requests). Its answer goes to
   * every member, and the breaker counts it once; a 413 splits the batch in halves, each sent on
   * its own, before any member counts it as a failure.
   */
  async #requestBatch(batch: PendingBatch<Batched, Sent>, probe = false): Promise<void> {
    // Its members left before it was sent (a stop during a 413's split): nothing to send.
    if (batch.size === 0) return;
    const queuedAt = performance.now();
    try {
      const made = await this.#deps.limiter.schedule(
        () => {
          const members = batch.take();
          // Every member left while the request waited for its turn: no empty request goes out.
          return members.length === 0 ? Promise.resolve(null) : this.#attemptBatch(members, queuedAt, probe);
        },
        batch.signal,
        batch.members[0]?.item.tenant,
      );
      // Not sent: whoever is still a member hears so (a limiter may refuse for its own reasons).
      if (made === null) {
        for (const member of batch.take()) member.resolve(null);
        return;
      }
      const { members, batchId, attempted } = made;
      if (tooLarge(attempted.report) && members.length > 1) {
        const half = Math.ceil(members.length / 2);
        void this.#requestBatch(new PendingBatch(members.slice(0, half)));
        void this.#requestBatch(new PendingBatch(members.slice(half)));
        return;
      }
      const first = members[0]?.item.ctx.eventId ?? batchId;
      const verdict = this.#health.attempted(attempted.classification, probe, first);
      for (const member of members) member.resolve({ attempted, verdict, batchId });
    } catch (err) {
      for (const member of batch.take()) member.reject(err);
    }
  }

  /**
   * The batch request, inside the limiter's slot: `{ "events": [ … ] }`, each member's body as
   * it would be sent alone, in the order of their events-topic records (a key's events keep their
   * order), under the batch's own `webhook-id`. Each member's span gets its own HTTP span, all
   * naming the batch; the request carries the first one's trace context.
   */
  async #attemptBatch(
    members: readonly BatchMember<Batched, Sent>[],
    queuedAt: number,
    probe: boolean,
  ): Promise<BatchAttempted> {
    const started = performance.now();
    const ordered = [...members].sort((a, b) => compareOrigins(a.item.ctx.origin, b.item.ctx.origin));
    const batchId = newBatchId();
    const attributes = {
      ...(probe
        ? { [ATTR.breakerState]: 'half-open', [ATTR.breakerProbe]: true }
        : { [ATTR.breakerState]: 'closed' }),
      [ATTR.batchId]: batchId,
      [ATTR.batchSize]: ordered.length,
    };
    const spans = ordered.map(({ item }) => {
      this.#deps.observer.limiterWaited(item.ctx, started - queuedAt);
      return item.ctx.span.http('POST', this.#topology.target, attributes);
    });
    const first = ordered[0]?.item.ctx.record;
    const report = await this.#deps.client.send({
      eventId: batchId,
      body: batchBody(ordered.map((m) => m.item.body)),
      traceparent: spans[0]?.traceparent ?? first?.headers[TRACEPARENT_HEADER],
    });
    for (const span of spans) {
      if (report.kind === 'response') span.responded(report.status);
      else span.failed(report.kind === 'timeout' ? 'timeout' : report.code);
    }
    const durationMs = performance.now() - started;
    const now = Date.now();
    const classification = classify(report, now);
    // A 413 that splits the batch is no member's attempt: the halves are.
    if (!(tooLarge(report) && ordered.length > 1))
      for (const { item } of ordered)
        this.#deps.observer.attempted(item.ctx, classification.outcome, classification.status, durationMs);
    if (classification.retryAfterMs !== null) this.#deps.limiter.pauseFor(classification.retryAfterMs);
    return { members: ordered, batchId, attempted: { report, classification, now, durationMs } };
  }

  /**
   * Stopped while the record waited for its next attempt. None made: abandoned. One made: its
   * outcome becomes durable now (the router's first write goes ahead even when stopping), so the
   * next one counts up from it; except with `ordering: "strict"`, where a tier copy would run
   * apart from its key's later events: abandoned with its attempt, whoever reads the partition
   * next starts it over, first of its key.
   */
  #stopped(
    ctx: RecordContext,
    event: Deliverable,
    failed: { attempted: Attempted; attempt: AttemptSummary } | null,
  ): Promise<DeliveryOutcome> | DeliveryOutcome {
    if (failed === null) return ABANDONED;
    if (this.#topology.definition.ordering === 'strict')
      return { kind: 'abandoned', attempt: failed.attempt };
    return this.#settler.settle(ctx, event, endOf(failed.attempted), failed.attempt);
  }

  /**
   * `ordering: "strict"`: a failure the policy would send to a tier waits here for that tier's
   * delay instead and is attempted again ('again'), so the later events of its key (chained behind
   * it) wait too and the record holds the ledger: a crash or a rebalance delivers it again, first
   * of its key. Past `maxHoldMs` since its first attempt it is dead-lettered as expired, and its
   * key goes on. Stopped while waiting, it is abandoned: whoever reads the partition next starts
   * it over, in order. Null: the policy acknowledges or dead-letters it, as for any ordering.
   */
  async #holdInPlace(
    ctx: RecordContext,
    event: Deliverable,
    attempted: Attempted,
    attempt: AttemptSummary,
  ): Promise<DeliveryOutcome | 'again' | null> {
    const end = endOf(attempted);
    const decision = this.#settler.decide(event, end, attempt);
    if (decision.action !== 'retry') return null;
    const { now } = end;
    const heldSinceMs = event.progress.firstAttemptAtMs ?? now;
    const maxHoldMs = this.#topology.definition.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    if (now + decision.delayMs - heldSinceMs > maxHoldMs) {
      const trail = this.#settler.failedTrail(ctx, event, end, attempt, decision.policyVersion);
      return this.#settler.deadLetter(ctx, trail, 'expired', attempt);
    }
    return (await waitFor(decision.delayMs, ctx.signal)) ? 'again' : { kind: 'abandoned', attempt };
  }

  /**
   * One request, classified inside the limiter's slot: a 429 pauses the destination before the
   * slot passes to the next request, which would otherwise go out first.
   */
  async #attempt(
    ctx: RecordContext,
    eventId: string,
    body: string,
    queuedAt: number,
    probe: boolean,
  ): Promise<Attempted> {
    const started = performance.now();
    this.#deps.observer.limiterWaited(ctx, started - queuedAt);
    // The span context is passed explicitly: the limiter may run this job from another job's
    // async context. The request carries the HTTP span's context, or with tracing off the
    // record's own, so the endpoint can still join the event's trace.
    const http = ctx.span.http('POST', this.#topology.target, probe ? PROBE_ATTRIBUTES : CLOSED_ATTRIBUTES);
    const report = await this.#deps.client.send({
      eventId,
      body,
      traceparent: http.traceparent ?? ctx.record.headers[TRACEPARENT_HEADER],
    });
    if (report.kind === 'response') http.responded(report.status);
    else http.failed(report.kind === 'timeout' ? 'timeout' : report.code);
    const durationMs = performance.now() - started;
    const now = Date.now();
    const classification = classify(report, now);
    this.#deps.observer.attempted(ctx, classification.outcome, classification.status, durationMs);
    if (classification.retryAfterMs !== null) this.#deps.limiter.pauseFor(classification.retryAfterMs);
    return { report, classification, now, durationMs };
  }
}

/** The breaker's state on an attempt's span; read only (the span copies them), so made once. */
const CLOSED_ATTRIBUTES: Attributes = Object.freeze({ [ATTR.breakerState]: 'closed' });
const PROBE_ATTRIBUTES: Attributes = Object.freeze({
  [ATTR.breakerState]: 'half-open',
  [ATTR.breakerProbe]: true,
});

/** 413: the batch is split in halves rather than failed. */
function tooLarge(report: AttemptReport): boolean {
  return report.kind === 'response' && report.status === 413;
}

/** One attempt as the steps after it record it: its batch and the answer's excerpt when it had them. */
function summaryOf(number: number, attempted: Attempted, batchId: string | undefined): AttemptSummary {
  const { classification, durationMs, report } = attempted;
  const excerpt = report.kind === 'response' && report.excerpt !== '' ? report.excerpt : undefined;
  return {
    number,
    classification,
    durationMs,
    ...(batchId === undefined ? {} : { batchId }),
    ...(excerpt === undefined ? {} : { excerpt }),
  };
}

/** What the settler needs of an HTTP attempt. */
function endOf(attempted: Attempted): AttemptEnd {
  const { report, classification, now } = attempted;
  return {
    classification,
    now,
    excerpt: report.kind === 'connection-error' ? report.code : report.excerpt,
  };
}

/** Events-topic order: by partition, then offset (a key's events share a partition). */
function compareOrigins(a: RecordLocation, b: RecordLocation): number {
  if (a.partition !== b.partition) return a.partition - b.partition;
  // Offsets are decimal strings without leading zeros: the shorter is the smaller.
  if (a.offset.length !== b.offset.length) return a.offset.length - b.offset.length;
  return a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0;
}
