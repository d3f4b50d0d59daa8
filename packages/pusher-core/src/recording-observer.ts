import { ATTEMPT_EXCERPT_MAX_CHARS, type AttemptLogEntry, type LogFn } from '@hookstream/contracts';
import { type OutcomeClass, POLICY_VERSION } from '@hookstream/delivery';

import { type DeadLetterNotices, deadLetterFact } from './dead-letter-notices.ts';
import type { DeliveryMetrics } from './delivery-metrics.ts';
import { type DeliveryCounts, type DeliveryObserver, emptyCounts } from './delivery-observer.ts';
import type { AttemptSummary, DeliveryOutcome, RecordContext } from './delivery-outcome.ts';
import { RecentAttempts } from './recent-attempts.ts';

export interface RecordingObserverDeps {
  readonly subscriber: string;
  readonly log: LogFn;
  /** Where each step goes for `hookstream ledger`; optional so benchmarks can leave it out. */
  readonly attemptLog?: { write(entry: AttemptLogEntry): void };
  /** Instruments for /metrics; none when the process serves no metrics. */
  readonly metrics?: DeliveryMetrics;
  /** Where dead letters become `subscriber.dead_lettered` notices; none in benchmarks and tests. */
  readonly deadLetterNotices?: DeadLetterNotices;
}

/** The production observer: one record's end fans out to counts, its span, metrics and logs. */
export class RecordingObserver implements DeliveryObserver {
  readonly counts: DeliveryCounts = emptyCounts();
  /** Attempts and 2xx answers of the last five minutes, for the instance's status report. */
  readonly recent = new RecentAttempts();
  readonly #deps: RecordingObserverDeps;
  #isoAtMs = Number.NaN;
  #iso = '';

  constructor(deps: RecordingObserverDeps) {
    this.#deps = deps;
  }

  limiterWaited(ctx: RecordContext, ms: number): void {
    ctx.span.limiterWait(ms);
    this.#deps.metrics?.limiterWaited(ms);
  }

  attempted(ctx: RecordContext, outcomeClass: OutcomeClass, status: number | null, durationMs: number): void {
    const metrics = this.#deps.metrics;
    if (metrics !== undefined) {
      metrics.attempted(outcomeClass, status, durationMs);
      // Off the happy path: only a failure reads the attempt's number and the span's ids.
      if (outcomeClass !== 'ack' && ctx.span.attemptNumber === 1)
        metrics.firstAttemptFailed(outcomeClass, status, ctx.span.sampledIds);
    }
    this.recent.record(outcomeClass === 'ack');
  }

  decodeWaiting(ctx: RecordContext, detail: string, waitMs: number): void {
    this.#deps.metrics?.registryWaited();
    this.#deps.log('warn', 'cannot decode yet; the record waits', {
      offset: ctx.record.offset,
      detail,
      retry_in_ms: waitMs,
      trace_id: ctx.span.traceId,
    });
  }

  recorded(ctx: RecordContext, step: DeliveryOutcome): void {
    this.#count(step);
    const reason =
      step.kind === 'dead-lettered'
        ? step.reason
        : 'attempt' in step
          ? step.attempt?.classification.reason
          : undefined;
    ctx.span.end(step.kind, reason, step.kind === 'dead-lettered');
    this.#deps.metrics?.ended(step.kind, step.kind === 'dead-lettered' ? step.reason : undefined);
    this.#logStep(ctx, step);
    const notices = this.#deps.deadLetterNotices;
    if (notices !== undefined && step.kind === 'dead-lettered') {
      const fact = deadLetterFact(this.#deps.subscriber, ctx, step, Date.now());
      if (fact !== null) notices.deadLettered(fact);
    }
  }

  #count(step: DeliveryOutcome): void {
    const counts = this.counts;
    if (step.kind === 'filtered') counts.filtered++;
    else if (step.kind === 'delivered') counts.acknowledged++;
    else if (step.kind === 'retry-scheduled') counts.retries++;
    else if (step.kind === 'abandoned') counts.abandoned++;
    else {
      counts.deadLettered++;
      if (step.reason === 'poison') counts.poison++;
    }
  }

  /** The log line and attempt-log entry of a step; abandoned records leave neither. */
  #logStep(ctx: RecordContext, step: DeliveryOutcome): void {
    const { log } = this.#deps;
    const traceId = ctx.span.traceId;
    const eventId = ctx.eventId;
    if (step.kind === 'filtered') {
      if (eventId !== undefined)
        this.#entry(ctx, eventId, 'filtered', 0, step.by === undefined ? {} : { filter: step.by });
    } else if (step.kind === 'delivered') {
      const a = step.attempt;
      if (eventId !== undefined) this.#entry(ctx, eventId, 'delivered', a.number, attemptFields(a));
      // Debug: one line per delivery is too many for a busy subscriber at info.
      log('debug', 'delivered', {
        event_id: eventId,
        attempt: a.number,
        outcome: a.classification.reason,
        status: a.classification.status,
        duration_ms: Math.round(a.durationMs),
        trace_id: traceId,
      });
    } else if (step.kind === 'retry-scheduled') {
      const a = step.attempt;
      const dueAt = new Date(step.dueAtMs).toISOString();
      if (eventId !== undefined)
        this.#entry(ctx, eventId, 'retry-scheduled', a.number, {
          ...attemptFields(a),
          tier: step.tier,
          dueAt,
        });
      log('info', 'retry scheduled', {
        event_id: eventId,
        attempt: a.number,
        outcome: a.classification.reason,
        status: a.classification.status,
        tier: step.tier,
        due_at: dueAt,
        trace_id: traceId,
      });
    } else if (step.kind === 'dead-lettered') {
      const { trail } = step;
      if (trail.eventId !== null)
        this.#entry(ctx, trail.eventId, 'dead-lettered', trail.attempts, {
          ...(step.attempt ? attemptFields(step.attempt) : {}),
          deadLetterReason: step.reason,
        });
      log('warn', 'dead-lettered', {
        event_id: trail.eventId,
        reason: step.reason,
        attempt: trail.attempts,
        outcome: trail.classification?.reason ?? null,
        status: trail.classification?.status ?? null,
        from: `${ctx.record.topic}:${ctx.record.partition}:${ctx.record.offset}`,
        trace_id: traceId,
      });
    }
  }

  /** Now as an ISO string, formatted once per millisecond rather than once per entry. */
  #isoNow(): string {
    const now = Date.now();
    if (now !== this.#isoAtMs) {
      this.#isoAtMs = now;
      this.#iso = new Date(now).toISOString();
    }
    return this.#iso;
  }

  #entry(
    ctx: RecordContext,
    eventId: string,
    step: AttemptLogEntry['step'],
    attempt: number,
    fields: Omit<Partial<AttemptLogEntry>, 'eventId' | 'step' | 'attempt' | 'origin' | 'source'>,
  ): void {
    const log = this.#deps.attemptLog;
    if (log === undefined) return;
    const entry: AttemptLogEntry = {
      eventId,
      subscriber: this.#deps.subscriber,
      step,
      attempt,
      at: this.#isoNow(),
      origin: ctx.origin,
      source: ctx.here,
      policyVersion: POLICY_VERSION,
      ...fields,
    };
    // Set on the entry just made, not by a copy of it: nearly every entry has a type.
    if (ctx.type !== undefined) entry.type = ctx.type;
    // A tenant's event names it, and a record a rewind sent again the rewind; an entry of any
    // other event stays as it was, with no copy made.
    const rewound = ctx.record.rewound;
    const named = ctx.tenant === undefined ? entry : { ...entry, tenant: ctx.tenant };
    log.write(
      rewound === undefined
        ? named
        : { ...named, rewind: { at: new Date(rewound.atMs).toISOString(), by: rewound.by } },
    );
  }
}

function attemptFields(a: AttemptSummary) {
  const status = a.classification.status;
  return {
    outcome: a.classification.reason,
    durationMs: a.durationMs,
    ...(status === null ? {} : { status }),
    ...(a.batchId === undefined ? {} : { batchId: a.batchId }),
    // Redacted already; a redaction can make it longer than the bytes read.
    ...(a.excerpt === undefined ? {} : { excerpt: a.excerpt.slice(0, ATTEMPT_EXCERPT_MAX_CHARS) }),
  };
}
