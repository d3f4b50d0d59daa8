import { buildBody, checkAge, classifyLeaseEnd, deliveryIdOf } from '@hookstream/delivery';
import type { ConsumedRecord } from '@hookstream/kafka';
import { deliveryTracer, ProcessSpan } from '@hookstream/telemetry';
import type { Tracer } from '@opentelemetry/api';
import type { HandlerOutcome } from './consume/record-handler.ts';
import type { DeliveryObserver } from './delivery-observer.ts';
import type { AttemptSummary, DeliveryOutcome, RecordContext } from './delivery-outcome.ts';
import { type Deliverable, EventAdmission, locationOf } from './event-admission.ts';
import type { EventDecoder } from './event-decoder.ts';
import { readEventHeaders } from './event-headers.ts';
import type { LeaseBook, LeaseEnd, LeaseEntry } from './lease-book.ts';
import type { OutcomeRouter } from './outcome-router.ts';
import { RecordSettler } from './record-settler.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

export interface PullDeliveryDeps {
  readonly topology: SubscriberTopology;
  readonly decoder: EventDecoder;
  readonly router: OutcomeRouter;
  readonly observer: DeliveryObserver;
  /** Where the subscriber's events wait for its pullers. */
  readonly book: LeaseBook;
  readonly random?: () => number;
  readonly tracer?: Tracer;
}

const ABANDONED: DeliveryOutcome = { kind: 'abandoned' };

/**
 * A pull subscriber's record handler: the same admission as push (types, tenant, filter, decode,
 * age), then the event waits in the lease book until a puller's lease ends for it. An ack
 * settles it as delivered; a nack without a delay or an expired lease offers it again with its
 * attempt counted up (dead-lettered at the ceilings); a nack with a delay sends it down the
 * retry schedule like a failed push. While it waits, it holds its partition's ledger, as an
 * attempt in flight does.
 */
export class PullDelivery {
  readonly #deps: PullDeliveryDeps;
  readonly #topology: SubscriberTopology;
  readonly #tracer: Tracer;
  readonly #admission: EventAdmission;
  readonly #settler: RecordSettler;
  readonly #bySignal = new WeakMap<AbortSignal, Set<LeaseEntry>>();

  constructor(deps: PullDeliveryDeps) {
    this.#deps = deps;
    this.#topology = deps.topology;
    this.#tracer = deps.tracer ?? deliveryTracer();
    this.#admission = new EventAdmission(deps);
    this.#settler = new RecordSettler(deps);
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
      step = await span.run(() => this.#handle(ctx, problem, tenant));
      return step.kind === 'abandoned' ? 'abandoned' : 'settled';
    } finally {
      this.#deps.observer.recorded(ctx, step);
    }
  };

  async #handle(
    ctx: RecordContext,
    problem: string | null,
    tenant: string | undefined,
  ): Promise<DeliveryOutcome> {
    const admission = await this.#admission.admit(ctx, problem, tenant);
    if (admission.kind === 'filtered') return admission.by === undefined ? { kind: 'filtered' } : admission;
    if (admission.kind === 'stopped') return ABANDONED;
    if (admission.kind === 'poison') return this.#settler.poison(ctx, admission.detail);
    const { event } = admission;
    const { progress, occurredAtMs } = event;
    if (checkAge({ occurredAtMs, nowMs: Date.now(), retry: this.#topology.definition.retry })) {
      const last = progress.attempts > 0 ? Date.now() : null;
      return this.#settler.deadLetter(
        ctx,
        this.#settler.trail(ctx, event, progress.attempts, last),
        'expired',
      );
    }
    return this.#lease(ctx, event);
  }

  /** Offers the event until a lease's end settles it. */
  async #lease(ctx: RecordContext, event: Deliverable): Promise<DeliveryOutcome> {
    const { book } = this.#deps;
    let attempts = event.progress.attempts;
    let firstAttemptAtMs = event.progress.firstAttemptAtMs;
    let leasedAtMs = 0;
    for (let again = false; ; again = true) {
      const end = await new Promise<LeaseEnd>((resolve) => {
        const entry: LeaseEntry = {
          eventId: event.eventId,
          cursor: `${ctx.here.topic}:${ctx.here.partition}:${ctx.here.offset}`,
          lane: `${ctx.here.topic}:${ctx.here.partition}`,
          offset: BigInt(ctx.here.offset),
          attempts,
          render: (attempt) => {
            leasedAtMs = Date.now();
            firstAttemptAtMs ??= leasedAtMs;
            ctx.span.attempt = attempt;
            return this.#body(event, attempt);
          },
          ended: (how) => {
            this.#bySignal.get(ctx.signal)?.delete(entry);
            attempts = entry.attempts;
            resolve(how);
          },
        };
        if (ctx.signal.aborted) return resolve({ kind: 'left' });
        this.#watched(ctx.signal).add(entry);
        book.offer(entry, again);
      });
      if (end.kind === 'left') return attempts > event.progress.attempts ? { kind: 'abandoned' } : ABANDONED;
      const sofar: Deliverable = { ...event, progress: { ...event.progress, firstAttemptAtMs } };
      const classification = classifyLeaseEnd(
        end.kind === 'expired' ? 'lease-expired' : end.kind,
        end.kind === 'nacked' ? end.delayMs : null,
      );
      // No excerpt: a puller answers with an ack or a nack, never a body.
      const attempt: AttemptSummary = { number: attempts, classification, durationMs: end.atMs - leasedAtMs };
      // A lease's end is the pull subscriber's attempt: counted as push counts its requests.
      this.#deps.observer.attempted(ctx, classification.outcome, null, attempt.durationMs);
      const settled = { classification, now: end.atMs, excerpt: end.kind };
      // A nack with a delay goes down the retry schedule like a failed push; an ack settles.
      if (end.kind === 'acked' || (end.kind === 'nacked' && end.delayMs !== null))
        return this.#settler.settle(ctx, sofar, settled, attempt);
      // Leasable again at once: no retry delay stands between, so only the attempt ceiling and
      // the event's age now can end it (the policy's retry check would add a delay never waited).
      const retry = this.#topology.definition.retry;
      const reason =
        attempts >= retry.maxAttempts
          ? 'exhausted'
          : checkAge({ occurredAtMs: event.occurredAtMs, nowMs: end.atMs, retry })
            ? 'expired'
            : null;
      if (reason !== null) {
        const trail = this.#settler.failedTrail(ctx, sofar, settled, attempt, classification.policyVersion);
        return this.#settler.deadLetter(ctx, trail, reason, attempt);
      }
    }
  }

  /**
   * The entries offered under a signal (a partition's work: one signal for all its records). One
   * listener per signal withdraws them all when it aborts: a listener per record would make every
   * add and remove walk a list as long as the partition's window.
   */
  #watched(signal: AbortSignal): Set<LeaseEntry> {
    let entries = this.#bySignal.get(signal);
    if (entries === undefined) {
      const watched = new Set<LeaseEntry>();
      entries = watched;
      this.#bySignal.set(signal, watched);
      signal.addEventListener(
        'abort',
        () => {
          for (const entry of [...watched]) this.#deps.book.withdraw(entry);
        },
        { once: true },
      );
    }
    return entries;
  }

  /** The event as push would send it alone, with this attempt's number. */
  #body(event: Deliverable, attempt: number): string {
    return buildBody(event.data, {
      eventId: event.eventId,
      subscriptionId: this.#topology.name,
      deliveryId: deliveryIdOf(this.#topology.name, event.eventId),
      type: event.type,
      occurredAt: event.occurredAt,
      tenant: event.tenant,
      attempt,
    });
  }
}
