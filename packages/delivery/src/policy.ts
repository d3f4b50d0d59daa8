import type { DeadLetterReason, RetrySettings } from '@hookstream/contracts';
import { EGRESS_PROXY_CODE_PREFIX } from './egress-proxy.ts';
import { OAUTH2_TOKEN_CODE_PREFIX } from './oauth2-token.ts';
import { parseRetryAfter } from './retry-after.ts';

/**
 * The version of the delivery contract table below. Every decision carries it, so a dead letter
 * or a retry can always be traced to the rules that made it; bump it whenever a rule changes.
 */
export const POLICY_VERSION = '2026-12-4';

/** What happened to one HTTP attempt, as plain data. */
export type AttemptResult =
  | { readonly kind: 'response'; readonly status: number; readonly retryAfter?: string | null }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'connection-error'; readonly code: string };

export type OutcomeClass = 'ack' | 'retryable' | 'terminal';

export type OutcomeReason =
  | 'accepted'
  | 'rate-limited'
  | 'server-error'
  | 'request-timeout'
  | 'timeout'
  | 'connection-error'
  /** The egress proxy failed (unreachable, refused the tunnel): not the destination's doing. */
  | 'proxy-error'
  /** No OAuth2 token could be had (token endpoint down or refusing the client): not the destination's doing. */
  | 'token-error'
  | 'redirect'
  | 'client-error'
  | 'informational'
  /** A pull subscriber's consumer gave the event back (`nack`). */
  | 'nacked'
  /** A pull subscriber's lease ran out before its consumer answered for the event. */
  | 'lease-expired';

export interface Classification {
  readonly outcome: OutcomeClass;
  readonly reason: OutcomeReason;
  /** Null when there was no HTTP response. */
  readonly status: number | null;
  /** From a 429's Retry-After; the whole destination backs off this long. */
  readonly retryAfterMs: number | null;
  readonly policyVersion: string;
}

/**
 * A pull subscriber's attempt (a lease that handed the event out), as the policy reads it: an
 * ack acknowledges; a nack or an expired lease is retryable, a nack's delay its Retry-After.
 */
export function classifyLeaseEnd(
  end: 'acked' | 'nacked' | 'lease-expired',
  retryAfterMs: number | null = null,
): Classification {
  return end === 'acked'
    ? { outcome: 'ack', reason: 'accepted', status: null, retryAfterMs: null, policyVersion: POLICY_VERSION }
    : { outcome: 'retryable', reason: end, status: null, retryAfterMs, policyVersion: POLICY_VERSION };
}

/** The delivery contract's table of answers (docs/contract.md), as a function. */
export function classify(result: AttemptResult, nowMs: number): Classification {
  const make = (
    outcome: OutcomeClass,
    reason: OutcomeReason,
    status: number | null,
    retryAfterMs = null as number | null,
  ): Classification => ({
    outcome,
    reason,
    status,
    retryAfterMs,
    policyVersion: POLICY_VERSION,
  });
  if (result.kind === 'timeout') return make('retryable', 'timeout', null);
  if (result.kind === 'connection-error')
    return make(
      'retryable',
      result.code.startsWith(EGRESS_PROXY_CODE_PREFIX)
        ? 'proxy-error'
        : result.code.startsWith(OAUTH2_TOKEN_CODE_PREFIX)
          ? 'token-error'
          : 'connection-error',
      null,
    );
  const { status } = result;
  if (status >= 200 && status < 300) return make('ack', 'accepted', status);
  if (status === 429)
    return make('retryable', 'rate-limited', status, parseRetryAfter(result.retryAfter, nowMs));
  if (status === 408) return make('retryable', 'request-timeout', status);
  if (status >= 500) return make('retryable', 'server-error', status);
  // Redirects are not followed: the subscriber must register the final URL.
  if (status >= 300 && status < 400) return make('retryable', 'redirect', status);
  if (status >= 400 && status < 500) return make('terminal', 'client-error', status);
  // 1xx as a final status is a broken server; the result is unknown, so retrying is safe.
  return make('retryable', 'informational', status);
}

export type Decision =
  | { readonly action: 'ack'; readonly policyVersion: string }
  | {
      readonly action: 'retry';
      /** How long to wait before the next attempt. */
      readonly delayMs: number;
      /** The retry tier (1-based) that delay belongs to, for the retry-topic router. */
      readonly tier: number;
      readonly nextAttempt: number;
      readonly policyVersion: string;
    }
  | { readonly action: 'dead-letter'; readonly reason: DeadLetterReason; readonly policyVersion: string };

export interface DecisionInput {
  readonly classification: Classification;
  /** The attempt that just ended, 1 for the first. */
  readonly attempt: number;
  /** When the event occurred (ms since epoch), the start of its usefulness window. */
  readonly occurredAtMs: number;
  readonly nowMs: number;
  readonly retry: RetrySettings;
  /** A number in [0, 1); injected so the decision stays a pure function. */
  readonly random: number;
}

/** Delay before the attempt after `attempt`: the tier's base (last tier repeats) plus jitter. */
export function backoffDelayMs(
  retry: RetrySettings,
  attempt: number,
  random: number,
): { delayMs: number; tier: number } {
  const tier = Math.min(Math.max(attempt, 1), retry.delaysMs.length);
  const base = retry.delaysMs[tier - 1] ?? 0;
  // Jitter only adds, so a retry never comes earlier than its tier promises.
  return { delayMs: Math.round(base * (1 + retry.jitter * random)), tier };
}

/** What to do after an attempt: acknowledge, retry after a delay, or dead-letter (and why). */
export function decide(input: DecisionInput): Decision {
  const { classification: c, attempt, retry } = input;
  const policyVersion = POLICY_VERSION;
  if (c.outcome === 'ack') return { action: 'ack', policyVersion };
  if (c.outcome === 'terminal') return { action: 'dead-letter', reason: 'terminal', policyVersion };
  if (attempt >= retry.maxAttempts) return { action: 'dead-letter', reason: 'exhausted', policyVersion };
  const { delayMs: backoff, tier } = backoffDelayMs(retry, attempt, input.random);
  const delayMs = Math.max(backoff, c.retryAfterMs ?? 0);
  // Retrying after the usefulness window would deliver something known to be stale.
  if (input.nowMs + delayMs - input.occurredAtMs > retry.maxAgeMs)
    return { action: 'dead-letter', reason: 'expired', policyVersion };
  return {
    action: 'retry',
    delayMs,
    tier: routeTier(retry.delaysMs, tier, delayMs),
    nextAttempt: attempt + 1,
    policyVersion,
  };
}

/**
 * The tier a retry waits in. A tier delivers its records in order, so a record due much later
 * than its tier's delay (a long Retry-After) would hold back every record behind it: it moves
 * up to the highest tier whose delay it still covers. Never below the attempt's own tier.
 */
export function routeTier(delaysMs: readonly number[], attemptTier: number, delayMs: number): number {
  let tier = attemptTier;
  for (let t = attemptTier + 1; t <= delaysMs.length; t++) {
    if ((delaysMs[t - 1] ?? Number.POSITIVE_INFINITY) <= delayMs) tier = t;
  }
  return tier;
}

/**
 * Before any attempt (the first, or one from a tier): an event already older than the age
 * ceiling is dead-lettered as expired instead of being delivered late.
 */
export function checkAge(input: {
  readonly occurredAtMs: number;
  readonly nowMs: number;
  readonly retry: RetrySettings;
}): { readonly action: 'dead-letter'; readonly reason: 'expired'; readonly policyVersion: string } | null {
  return input.nowMs - input.occurredAtMs > input.retry.maxAgeMs
    ? { action: 'dead-letter', reason: 'expired', policyVersion: POLICY_VERSION }
    : null;
}
