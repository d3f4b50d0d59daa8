import { describe, expect, it } from 'vitest';
import { HS_HEADER, MAX_EXCERPT_CHARS } from '../src/delivery-headers.ts';
import {
  readDeadLetterEvidence,
  readDueAtMs,
  readRetryState,
  writeHsHeaders,
} from '../src/hs-header-codec.ts';

const origin = { topic: 'events', partition: 4, offset: '9007199254740993' };
const source = { topic: 'hookstream.sub.billing.retry.1', partition: 4, offset: '12' };

describe('the hookstream_* header codec', () => {
  it('a retry state written is the retry state read back (int64 offsets stay exact)', () => {
    const headers = writeHsHeaders({
      eventId: 'evt_1',
      subscriber: 'billing',
      attempts: 2,
      firstAttemptAtMs: Date.UTC(2026, 11, 1, 10),
      lastAttemptAtMs: Date.UTC(2026, 11, 1, 10, 0, 1),
      dueAtMs: Date.UTC(2026, 11, 1, 10, 0, 11),
      status: 503,
      outcome: 'server-error',
      policyVersion: '2026-11-2',
      origin,
      source,
    });
    expect(readRetryState(headers)).toMatchObject({
      eventId: 'evt_1',
      attempts: 2,
      dueAt: '2026-12-01T10:00:11.000Z',
      status: 503,
      origin,
    });
    expect(readDueAtMs(headers)).toBe(Date.UTC(2026, 11, 1, 10, 0, 11));
  });

  it('writes only the fields present: no "undefined" or "null" strings', () => {
    const headers = writeHsHeaders({
      subscriber: 'billing',
      status: null,
      firstAttemptAtMs: null,
      excerpt: '',
    });
    expect(headers).toEqual({ [HS_HEADER.subscriber]: 'billing' });
  });

  it('caps the excerpt, so no response body travels in a dead letter', () => {
    const headers = writeHsHeaders({ excerpt: 'x'.repeat(10_000) });
    expect(headers[HS_HEADER.excerpt]).toHaveLength(MAX_EXCERPT_CHARS);
  });

  it('dead-letter evidence reads back, and unreadable evidence names each bad field', () => {
    const headers = writeHsHeaders({
      eventId: 'evt_2',
      subscriber: 'billing',
      attempts: 0,
      deadLetterReason: 'poison',
      deadLetteredAtMs: 0,
      policyVersion: '2026-11-2',
      origin,
    });
    expect(readDeadLetterEvidence(headers)).toMatchObject({
      ok: true,
      evidence: { reason: 'poison', origin },
    });
    const broken = readDeadLetterEvidence({ ...headers, [HS_HEADER.deadLetterReason]: 'bored' });
    expect(broken).toMatchObject({ ok: false });
    expect(broken.ok ? '' : broken.problem).toContain('reason');
  });

  it('a tier record without a readable due time or attempt count reads as null', () => {
    expect(readDueAtMs({ [HS_HEADER.dueAt]: 'tomorrow' })).toBeNull();
    expect(readDueAtMs({})).toBeNull();
    expect(readRetryState({ [HS_HEADER.attempts]: 'lots' })).toBeNull();
  });
});
