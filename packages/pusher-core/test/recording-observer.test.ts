import { ATTEMPT_EXCERPT_MAX_CHARS, AttemptLogEntry } from '@hookstream/contracts';
import { classify, type DeliveryTrail, POLICY_VERSION } from '@hookstream/delivery';
import { deliveryTracer, ProcessSpan } from '@hookstream/telemetry';
import { describe, expect, it } from 'vitest';
import { DeadLetterNotices } from '../src/dead-letter-notices.ts';
import type { DeliveryMetrics } from '../src/delivery-metrics.ts';
import type { AttemptSummary, DeliveryOutcome, RecordContext } from '../src/delivery-outcome.ts';
import { RecordingObserver } from '../src/recording-observer.ts';
import { eventRecord } from './fakes.ts';

function context(tenant?: string, rewound?: { atMs: number; by: string }): RecordContext {
  const record = rewound === undefined ? eventRecord() : { ...eventRecord(), rewound };
  const span = new ProcessSpan(deliveryTracer(), record, {
    consumerGroup: 'g',
    subscriber: 'billing',
    eventId: 'evt_1',
    eventType: 'shipment.updated',
    tier: undefined,
  });
  const here = { topic: record.topic, partition: record.partition, offset: record.offset };
  return {
    record,
    signal: new AbortController().signal,
    span,
    here,
    eventId: 'evt_1',
    type: 'shipment.updated',
    tenant,
    origin: here,
  };
}

function attempt(status: number): AttemptSummary {
  return { number: 2, classification: classify({ kind: 'response', status }, Date.now()), durationMs: 12 };
}

const trail: DeliveryTrail = {
  eventId: 'evt_1',
  subscriber: 'billing',
  attempts: 2,
  firstAttemptAtMs: 1,
  lastAttemptAtMs: 2,
  classification: null,
  excerpt: '',
  policyVersion: POLICY_VERSION,
  origin: { topic: 'e', partition: 0, offset: '1' },
  source: { topic: 'e', partition: 0, offset: '1' },
};

function harness() {
  const entries: AttemptLogEntry[] = [];
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const ended: string[] = [];
  const metrics: DeliveryMetrics = {
    attempted: () => undefined,
    firstAttemptFailed: () => undefined,
    limiterWaited: () => undefined,
    registryWaited: () => undefined,
    ended: (outcome, reason) => ended.push(reason ? `${outcome}:${reason}` : outcome),
  };
  const observer = new RecordingObserver({
    subscriber: 'billing',
    log: (level, message, fields = {}) => lines.push({ level, message, fields }),
    attemptLog: { write: (e) => entries.push(e) },
    metrics,
  });
  return { observer, entries, lines, ended };
}

describe('RecordingObserver: one step fans out to counts, metrics, the attempt log and logs', () => {
  it.each<{ step: DeliveryOutcome; count: string; entry: string | null; line: [string, string] | null }>([
    { step: { kind: 'filtered' }, count: 'filtered', entry: 'filtered', line: null },
    {
      step: { kind: 'delivered', attempt: attempt(200) },
      count: 'acknowledged',
      entry: 'delivered',
      line: ['debug', 'delivered'],
    },
    {
      step: { kind: 'retry-scheduled', attempt: attempt(503), tier: 2, dueAtMs: 0 },
      count: 'retries',
      entry: 'retry-scheduled',
      line: ['info', 'retry scheduled'],
    },
    {
      step: { kind: 'dead-lettered', reason: 'terminal', trail, attempt: attempt(404) },
      count: 'deadLettered',
      entry: 'dead-lettered',
      line: ['warn', 'dead-lettered'],
    },
    { step: { kind: 'abandoned' }, count: 'abandoned', entry: null, line: null },
  ])('$step.kind', ({ step, count, entry, line }) => {
    const h = harness();
    h.observer.recorded(context(), step);
    expect(Object.entries(h.observer.counts).filter(([, n]) => n > 0)).toEqual([[count, 1]]);
    expect(h.ended).toEqual([step.kind === 'dead-lettered' ? `${step.kind}:${step.reason}` : step.kind]);
    expect(h.entries.map((e) => e.step)).toEqual(entry === null ? [] : [entry]);
    expect(h.lines.map((l) => [l.level, l.message])).toEqual(line === null ? [] : [line]);
  });

  it("an entry of a tenant's event names its tenant; one of an event without a tenant has no tenant key", () => {
    const h = harness();
    const step: DeliveryOutcome = { kind: 'delivered', attempt: attempt(200) };
    h.observer.recorded(context('acme'), step);
    h.observer.recorded(context(), step);
    expect(h.entries.map((e) => e.tenant)).toEqual(['acme', undefined]);
    expect('tenant' in (h.entries[1] ?? {})).toBe(false);
  });

  it('an entry of a record a rewind sent again says which rewind (every step of it); others have no rewind key', () => {
    const h = harness();
    const mark = { atMs: Date.parse('2026-12-04T10:00:00.000Z'), by: 'alice' };
    h.observer.recorded(context(undefined, mark), { kind: 'delivered', attempt: attempt(204) });
    h.observer.recorded(context('acme', mark), {
      kind: 'retry-scheduled',
      attempt: attempt(503),
      tier: 1,
      dueAtMs: 0,
    });
    h.observer.recorded(context(undefined, mark), { kind: 'filtered', by: 'filter.exact.type' });
    h.observer.recorded(context(), { kind: 'delivered', attempt: attempt(204) });
    const rewind = { at: '2026-12-04T10:00:00.000Z', by: 'alice' };
    expect(h.entries.map((e) => [e.step, e.tenant, e.rewind])).toEqual([
      ['delivered', undefined, rewind],
      ['retry-scheduled', 'acme', rewind],
      ['filtered', undefined, rewind],
      ['delivered', undefined, undefined],
    ]);
    expect('rewind' in (h.entries[3] ?? {})).toBe(false);
    expect(h.entries.every((e) => AttemptLogEntry.safeParse(e).success)).toBe(true);
  });

  it('counts a failed first attempt, with the span ids when it is sampled; not a success, nor a later attempt', () => {
    const failed: unknown[][] = [];
    const metrics: DeliveryMetrics = {
      attempted: () => undefined,
      firstAttemptFailed: (...args) => failed.push(args),
      limiterWaited: () => undefined,
      registryWaited: () => undefined,
      ended: () => undefined,
    };
    const observer = new RecordingObserver({ subscriber: 'billing', log: () => undefined, metrics });
    const ids = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    // A span as the observer reads it: the attempt's number, and its ids when sampled.
    const at = (attemptNumber: number, sampledIds?: typeof ids): RecordContext => ({
      ...context(),
      span: { attemptNumber, sampledIds } as unknown as ProcessSpan,
    });
    observer.attempted(at(1), 'ack', 204, 5);
    observer.attempted(at(1), 'terminal', 400, 5);
    observer.attempted(at(1, ids), 'retryable', null, 5);
    observer.attempted(at(2, ids), 'retryable', 503, 5);
    expect(failed).toEqual([
      ['terminal', 400, undefined],
      ['retryable', null, ids],
    ]);
    // The real span: unsampled without a tracing SDK, so no ids, and its attempt as set.
    const real = context();
    real.span.attempt = 1;
    observer.attempted(real, 'retryable', 500, 5);
    expect(failed.at(-1)).toEqual(['retryable', 500, undefined]);
  });

  it('a poison dead letter counts as both dead-lettered and poison', () => {
    const h = harness();
    h.observer.recorded(context(), {
      kind: 'dead-lettered',
      reason: 'poison',
      trail: { ...trail, attempts: 0 },
    });
    expect(h.observer.counts).toMatchObject({ deadLettered: 1, poison: 1 });
    expect(h.entries[0]).toMatchObject({ step: 'dead-lettered', attempt: 0, deadLetterReason: 'poison' });
  });

  it('a retry entry carries the tier, due time, status and duration for `hookstream ledger`', () => {
    const h = harness();
    h.observer.recorded(context(), {
      kind: 'retry-scheduled',
      attempt: attempt(503),
      tier: 2,
      dueAtMs: 86_400_000,
    });
    expect(h.entries[0]).toMatchObject({
      subscriber: 'billing',
      attempt: 2,
      tier: 2,
      dueAt: '1970-01-02T00:00:00.000Z',
      status: 503,
      outcome: 'server-error',
      durationMs: 12,
      policyVersion: POLICY_VERSION,
    });
  });
  it("an entry names the event's type, and an attempt's answer excerpt, cut to ATTEMPT_EXCERPT_MAX_CHARS", () => {
    const h = harness();
    const long = 'x'.repeat(ATTEMPT_EXCERPT_MAX_CHARS + 40);
    h.observer.recorded(context(), {
      kind: 'delivered',
      attempt: { ...attempt(200), excerpt: 'ok [redacted]' },
    });
    h.observer.recorded(context(), {
      kind: 'dead-lettered',
      reason: 'terminal',
      trail,
      attempt: { ...attempt(400), excerpt: long },
    });
    h.observer.recorded(context(), { kind: 'retry-scheduled', attempt: attempt(503), tier: 1, dueAtMs: 0 });
    expect(h.entries.map((e) => e.type)).toEqual([
      'shipment.updated',
      'shipment.updated',
      'shipment.updated',
    ]);
    expect(h.entries.map((e) => e.excerpt)).toEqual([
      'ok [redacted]',
      long.slice(0, ATTEMPT_EXCERPT_MAX_CHARS),
      undefined,
    ]);
    expect('excerpt' in (h.entries[2] ?? {})).toBe(false);
    expect(h.entries.every((e) => AttemptLogEntry.safeParse(e).success)).toBe(true);
  });

  it('an entry of a record whose type could not be read has no type key', () => {
    const h = harness();
    h.observer.recorded(
      { ...context(), type: undefined },
      { kind: 'dead-lettered', reason: 'poison', trail },
    );
    expect('type' in (h.entries[0] ?? {})).toBe(false);
  });
  it('a dead letter of an event becomes a subscriber.dead_lettered notice; one of a notice does not', async () => {
    const ids: (string | null | undefined)[] = [];
    const deadLetterNotices = new DeadLetterNotices({
      subscriber: 'billing',
      eventsTopic: 'events',
      notices: async () => ({
        publish: async (_type, data) => {
          ids.push((data as { event: { id?: string | null } }).event.id);
        },
      }),
      log: () => undefined,
    });
    const observer = new RecordingObserver({
      subscriber: 'billing',
      log: () => undefined,
      deadLetterNotices,
    });
    const dead: DeliveryOutcome = { kind: 'dead-lettered', reason: 'exhausted', trail };
    observer.recorded(context(), dead);
    observer.recorded({ ...context(), type: 'subscriber.failing' }, dead);
    observer.recorded(context(), { kind: 'delivered', attempt: attempt(200) });
    await deadLetterNotices.stop();
    expect(ids).toEqual(['evt_1']);
  });
});
