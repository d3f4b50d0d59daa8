import { RetrySettings } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import {
  type AttemptResult,
  backoffDelayMs,
  checkAge,
  classify,
  decide,
  POLICY_VERSION,
  routeTier,
} from '../src/policy.ts';

const now = Date.parse('2026-11-30T12:00:00Z');
const retry: RetrySettings = {
  delaysMs: [1000, 10_000, 60_000],
  maxAttempts: 5,
  maxAgeMs: 3_600_000,
  jitter: 0.5,
};
const response = (status: number, retryAfter?: string): AttemptResult =>
  retryAfter === undefined ? { kind: 'response', status } : { kind: 'response', status, retryAfter };

describe('classify (the delivery contract table)', () => {
  it.each([200, 201, 202, 204, 299])('%d is an ACK', (status) => {
    expect(classify(response(status), now)).toMatchObject({ outcome: 'ack', reason: 'accepted', status });
  });

  it.each([
    [500, 'server-error'],
    [502, 'server-error'],
    [503, 'server-error'],
    [599, 'server-error'],
    [408, 'request-timeout'],
    [301, 'redirect'],
    [302, 'redirect'],
    [307, 'redirect'],
    [308, 'redirect'],
    [304, 'redirect'],
    [100, 'informational'],
  ])('%d is retryable (%s)', (status, reason) => {
    expect(classify(response(status), now)).toMatchObject({
      outcome: 'retryable',
      reason,
      retryAfterMs: null,
    });
  });

  it.each([400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 451, 499])('%d is terminal', (status) => {
    expect(classify(response(status), now)).toMatchObject({ outcome: 'terminal', reason: 'client-error' });
  });

  it('honours Retry-After on 429, in seconds or as an HTTP date', () => {
    expect(classify(response(429, '2'), now)).toMatchObject({
      outcome: 'retryable',
      reason: 'rate-limited',
      retryAfterMs: 2000,
    });
    expect(classify(response(429, 'Mon, 30 Nov 2026 12:00:07 GMT'), now).retryAfterMs).toBe(7000);
    expect(classify(response(429), now).retryAfterMs).toBeNull();
  });

  it('ignores Retry-After on anything but 429', () => {
    expect(classify(response(503, '30'), now).retryAfterMs).toBeNull();
  });

  it('treats timeouts and connection errors as retryable without a status', () => {
    expect(classify({ kind: 'timeout' }, now)).toMatchObject({
      outcome: 'retryable',
      reason: 'timeout',
      status: null,
    });
    expect(classify({ kind: 'connection-error', code: 'ECONNREFUSED' }, now)).toMatchObject({
      outcome: 'retryable',
      reason: 'connection-error',
    });
    // The egress proxy's own failure: retried, and named apart from the destination's.
    expect(classify({ kind: 'connection-error', code: 'EGRESS_PROXY_TIMEOUT' }, now)).toMatchObject({
      outcome: 'retryable',
      reason: 'proxy-error',
    });
  });

  it('records the policy version on every classification', () => {
    expect(classify(response(204), now).policyVersion).toBe(POLICY_VERSION);
  });
});

describe('backoffDelayMs', () => {
  it('walks the tiers and repeats the last one as the cap', () => {
    expect([1, 2, 3, 4, 9].map((a) => backoffDelayMs({ ...retry, jitter: 0 }, a, 0.99))).toEqual([
      { delayMs: 1000, tier: 1 },
      { delayMs: 10_000, tier: 2 },
      { delayMs: 60_000, tier: 3 },
      { delayMs: 60_000, tier: 3 },
      { delayMs: 60_000, tier: 3 },
    ]);
  });

  it('adds jitter up to the fraction, never subtracts', () => {
    expect(backoffDelayMs(retry, 1, 0).delayMs).toBe(1000);
    expect(backoffDelayMs(retry, 1, 0.5).delayMs).toBe(1250);
    expect(backoffDelayMs(retry, 1, 0.999_999).delayMs).toBe(1500);
  });
});

describe('decide', () => {
  const base = { attempt: 1, occurredAtMs: now - 1000, nowMs: now, retry, random: 0 };

  it('acknowledges a 2xx', () => {
    expect(decide({ ...base, classification: classify(response(204), now) })).toEqual({
      action: 'ack',
      policyVersion: POLICY_VERSION,
    });
  });

  it('dead-letters a terminal outcome at once, even on the first attempt', () => {
    expect(decide({ ...base, classification: classify(response(400), now) })).toEqual({
      action: 'dead-letter',
      reason: 'terminal',
      policyVersion: POLICY_VERSION,
    });
  });

  it('retries a retryable outcome after the tier delay, with the next attempt number', () => {
    expect(decide({ ...base, attempt: 2, classification: classify(response(503), now) })).toEqual({
      action: 'retry',
      delayMs: 10_000,
      tier: 2,
      nextAttempt: 3,
      policyVersion: POLICY_VERSION,
    });
  });

  it('waits at least as long as Retry-After, and the backoff when that is longer', () => {
    const longer = decide({ ...base, classification: classify(response(429, '30'), now) });
    expect(longer).toMatchObject({ action: 'retry', delayMs: 30_000 });
    const shorter = decide({ ...base, attempt: 3, classification: classify(response(429, '2'), now) });
    expect(shorter).toMatchObject({ action: 'retry', delayMs: 60_000 });
  });

  it('dead-letters as exhausted once the attempt ceiling is reached', () => {
    const c = classify({ kind: 'timeout' }, now);
    expect(decide({ ...base, attempt: 4, classification: c }).action).toBe('retry');
    expect(decide({ ...base, attempt: 5, classification: c })).toMatchObject({
      action: 'dead-letter',
      reason: 'exhausted',
    });
  });

  it('dead-letters as expired when the next attempt would fall outside the age ceiling', () => {
    const c = classify(response(500), now);
    expect(decide({ ...base, occurredAtMs: now - 3_599_001, classification: c })).toMatchObject({
      action: 'dead-letter',
      reason: 'expired',
    });
    expect(decide({ ...base, occurredAtMs: now - 3_599_000, classification: c }).action).toBe('retry');
  });

  it('with maxAttempts 1 never retries', () => {
    const c = classify(response(500), now);
    expect(decide({ ...base, retry: { ...retry, maxAttempts: 1 }, classification: c })).toMatchObject({
      action: 'dead-letter',
      reason: 'exhausted',
    });
  });
});

describe('routeTier', () => {
  const delays = [1000, 10_000, 60_000];
  it('keeps the attempt tier when the delay is the tier delay', () => {
    expect(routeTier(delays, 1, 1000)).toBe(1);
    expect(routeTier(delays, 2, 12_000)).toBe(2);
  });
  it('moves a long Retry-After up to the highest tier it covers', () => {
    expect(routeTier(delays, 1, 10_000)).toBe(2);
    expect(routeTier(delays, 1, 59_999)).toBe(2);
    expect(routeTier(delays, 1, 3_600_000)).toBe(3);
  });
  it('never goes below the attempt tier', () => {
    expect(routeTier(delays, 3, 1000)).toBe(3);
  });
});

describe('checkAge', () => {
  const retry = RetrySettings.parse({ maxAgeMs: 60_000 });
  it('lets an event inside its usefulness window through', () => {
    expect(checkAge({ occurredAtMs: 0, nowMs: 60_000, retry })).toBeNull();
  });
  it('dead-letters an event older than the age ceiling as expired', () => {
    expect(checkAge({ occurredAtMs: 0, nowMs: 60_001, retry })).toMatchObject({
      action: 'dead-letter',
      reason: 'expired',
      policyVersion: POLICY_VERSION,
    });
  });
});
