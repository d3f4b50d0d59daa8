import { DeadLetterEvidence, HS_HEADER, RetryState, readHsHeaders } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import {
  type DeliveryTrail,
  deadLetterHeaders,
  lostRangeHeaders,
  lostRangeKey,
  retryHeaders,
} from '../src/evidence.ts';
import { classify } from '../src/policy.ts';

const t0 = Date.parse('2026-11-30T10:00:00Z');
const trail: DeliveryTrail = {
  eventId: 'evt-1',
  subscriber: 'billing',
  attempts: 2,
  firstAttemptAtMs: t0,
  lastAttemptAtMs: t0 + 1000,
  classification: classify({ kind: 'response', status: 503 }, t0),
  excerpt: 'x'.repeat(1000),
  policyVersion: '2026-11-2',
  origin: { topic: 'events', partition: 2, offset: '41' },
  source: { topic: 'hookstream.sub.billing.retry.1', partition: 2, offset: '7' },
};
const original = {
  ce_id: 'evt-1',
  ce_type: 'shipment.updated',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  [HS_HEADER.dueAt]: '2026-11-30T09:59:00.000Z',
  [HS_HEADER.replayOf]: 'hookstream.sub.billing.dlq:0:3',
  [HS_HEADER.replays]: '1',
};

describe('retryHeaders', () => {
  it('keeps the event headers and replay lineage, and writes a state the tier consumer parses', () => {
    const h = retryHeaders(original, trail, t0 + 11_000);
    expect(h.ce_id).toBe('evt-1');
    expect(h.traceparent).toBe(original.traceparent);
    const state = RetryState.parse(readHsHeaders(h));
    expect(state).toMatchObject({
      eventId: 'evt-1',
      attempts: 2,
      dueAt: new Date(t0 + 11_000).toISOString(),
      status: 503,
      outcome: 'server-error',
      replayOf: 'hookstream.sub.billing.dlq:0:3',
      replays: 1,
      origin: { topic: 'events', partition: 2, offset: '41' },
    });
  });

  it("carries the hand-off's trace context instead of the record's when it has one", () => {
    const handoff = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01' };
    const h = retryHeaders({ ...original, tracestate: 'vendor=old' }, trail, t0, handoff);
    expect(h.traceparent).toBe(handoff.traceparent);
    // The old tracestate belonged to the old span context; the new one says what it carries.
    expect(h.tracestate).toBeUndefined();
    expect(deadLetterHeaders(original, trail, 'terminal', t0, handoff).traceparent).toBe(handoff.traceparent);
    // Tracing off: nothing injected, the record's own context travels on.
    expect(deadLetterHeaders(original, trail, 'terminal', t0, {}).traceparent).toBe(original.traceparent);
  });

  it('bounds the excerpt', () => {
    expect(retryHeaders(original, trail, t0)[HS_HEADER.excerpt]?.length).toBe(256);
  });
});

describe('deadLetterHeaders', () => {
  it('carries every piece of evidence and drops the last hop due time', () => {
    const h = deadLetterHeaders(original, trail, 'exhausted', t0 + 2000);
    expect(h[HS_HEADER.dueAt]).toBeUndefined();
    const evidence = DeadLetterEvidence.parse(readHsHeaders(h));
    expect(evidence).toMatchObject({
      eventId: 'evt-1',
      subscriber: 'billing',
      reason: 'exhausted',
      attempts: 2,
      firstAttemptAt: new Date(t0).toISOString(),
      lastAttemptAt: new Date(t0 + 1000).toISOString(),
      deadLetteredAt: new Date(t0 + 2000).toISOString(),
      outcomeClass: 'retryable',
      status: 503,
      policyVersion: '2026-11-2',
      origin: { topic: 'events', partition: 2, offset: '41' },
      source: { topic: 'hookstream.sub.billing.retry.1', partition: 2, offset: '7' },
    });
  });

  it('records a poison record without an event id or a status', () => {
    const h = deadLetterHeaders(
      {},
      { ...trail, eventId: null, attempts: 0, classification: null, excerpt: '' },
      'poison',
      t0,
    );
    const evidence = DeadLetterEvidence.parse(readHsHeaders(h));
    expect(evidence.eventId).toBeUndefined();
    expect(evidence.status).toBeUndefined();
    expect(evidence.reason).toBe('poison');
  });
});

describe('lostRangeHeaders', () => {
  it('is a dead letter of reason lost with the range, no event id, and reads back as evidence', () => {
    const h = lostRangeHeaders({
      subscriber: 'billing',
      topic: 'events',
      partition: 0,
      lostFrom: 5,
      lostTo: 19,
      lostCount: 15,
      lastCommitAtMs: t0,
      foundAtMs: t0 + 5000,
      policyVersion: '2026-11-2',
    });
    const evidence = DeadLetterEvidence.parse(readHsHeaders(h));
    expect(evidence).toEqual({
      subscriber: 'billing',
      reason: 'lost',
      attempts: 0,
      deadLetteredAt: new Date(t0 + 5000).toISOString(),
      policyVersion: '2026-11-2',
      origin: { topic: 'events', partition: 0, offset: '5' },
      lostFrom: '5',
      lostTo: '19',
      lostCount: 15,
      lastCommitAt: new Date(t0).toISOString(),
    });
    expect(lostRangeKey({ topic: 'events', partition: 0, lostFrom: 5 })).toBe('lost:events:0:5');
  });
});
