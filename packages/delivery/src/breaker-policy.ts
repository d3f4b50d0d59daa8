import type { BreakerSettings } from '@hookstream/contracts';
import type { Classification } from './policy.ts';

/**
 * The version of the breaker's rules below, next to POLICY_VERSION: bump it when a rule
 * changes, so a transition in the logs can be traced to the rules that made it.
 */
export const BREAKER_POLICY_VERSION = '2026-12-4';

export type BreakerPhase = 'closed' | 'open' | 'half-open';

/**
 * What one attempt says about the destination's health. A 4xx other than 410 means the
 * endpoint is up and refused this one event (the event is dead-lettered; the endpoint is
 * healthy); a 429 says nothing either way (its Retry-After already pauses the destination), nor
 * does a failure of the egress proxy or of the OAuth2 token endpoint.
 */
export type HealthSignal = 'success' | 'failure' | 'neutral' | 'gone';

export function healthSignal(c: Classification): HealthSignal {
  if (c.outcome === 'ack') return 'success';
  if (c.status === 410) return 'gone';
  if (c.reason === 'rate-limited') return 'neutral';
  // The proxy failed, not the destination: its breaker and failure clock hear nothing.
  if (c.reason === 'proxy-error') return 'neutral';
  // Nor did the destination refuse anything when no token could be had: no request reached it.
  if (c.reason === 'token-error') return 'neutral';
  if (c.outcome === 'terminal') return 'success';
  return 'failure';
}

/** Attempts and failures of one slice of the ratio window. */
export interface WindowBucket {
  readonly startMs: number;
  readonly attempts: number;
  readonly failures: number;
}

export interface BreakerState {
  readonly phase: BreakerPhase;
  readonly consecutiveFailures: number;
  /** The ratio window, oldest slice first; slices older than windowMs are dropped. */
  readonly buckets: readonly WindowBucket[];
  /** When it opened; null while closed. */
  readonly openedAtMs: number | null;
  /** When the next probe may go out; null while closed. */
  readonly nextProbeAtMs: number | null;
  /** The first failure with no success since; null while the destination is healthy. */
  readonly failingSinceMs: number | null;
}

export const CLOSED_BREAKER: BreakerState = {
  phase: 'closed',
  consecutiveFailures: 0,
  buckets: [],
  openedAtMs: null,
  nextProbeAtMs: null,
  failingSinceMs: null,
};

/** What another instance decided, as the shared store holds it; null there means closed. */
export interface SharedOpen {
  readonly openedAtMs: number;
  readonly failingSinceMs: number | null;
}

export type TransitionCause =
  | 'consecutive-failures'
  | 'failure-ratio'
  | 'probe-sent'
  | 'probe-failed'
  | 'success'
  | 'shared-open'
  | 'shared-close';

export interface BreakerTransition {
  readonly from: BreakerPhase;
  readonly to: BreakerPhase;
  readonly cause: TransitionCause;
}

/** `gone`: a 410 answered; `failing`: no success for disableAfterMs. */
export type DisableCause = 'gone' | 'failing';

export type Admission =
  | { readonly kind: 'go' }
  /** A probe may go out now: the caller claims it (probeSent) or learns it is taken (probeTaken). */
  | { readonly kind: 'probe-due' }
  | { readonly kind: 'wait'; readonly untilMs: number };

export interface BreakerPolicyOptions {
  readonly settings: BreakerSettings;
  readonly disableAfterMs: number;
  /** Injected so the rules can be driven by a table of times. */
  readonly now: () => number;
}

/** The ratio window is kept as ten slices: bounded memory whatever the rate. */
const SLICES = 10;

/**
 * The breaker's rules as a state machine with no I/O: what an attempt's outcome does to the
 * state, whether a record may go now, and what another instance's decision changes. The
 * DestinationBreaker around it does the waiting and the sharing.
 */
export class BreakerPolicy {
  readonly #settings: BreakerSettings;
  readonly #disableAfterMs: number;
  readonly #now: () => number;
  #state: BreakerState = CLOSED_BREAKER;

  constructor(options: BreakerPolicyOptions) {
    this.#settings = options.settings;
    this.#disableAfterMs = options.disableAfterMs;
    this.#now = options.now;
  }

  get state(): BreakerState {
    return this.#state;
  }

  /** Whether a record may be attempted now. */
  admit(): Admission {
    const s = this.#state;
    if (s.phase === 'closed') return { kind: 'go' };
    const due = s.nextProbeAtMs ?? this.#now();
    return this.#now() >= due ? { kind: 'probe-due' } : { kind: 'wait', untilMs: due };
  }

  /**
   * This caller sends the probe: half-open until its outcome. Another may go one interval
   * later if this one never reports (its process died), so a lost probe cannot wedge it open.
   */
  probeSent(): BreakerTransition | null {
    const s = this.#state;
    if (s.phase === 'closed') return null;
    this.#state = { ...s, phase: 'half-open', nextProbeAtMs: this.#now() + this.#settings.probeIntervalMs };
    return s.phase === 'half-open' ? null : { from: s.phase, to: 'half-open', cause: 'probe-sent' };
  }

  /** Another instance holds the probe slot until untilMs. */
  probeTaken(untilMs: number): void {
    if (this.#state.phase !== 'closed') this.#state = { ...this.#state, nextProbeAtMs: untilMs };
  }

  /** One attempt's outcome; `probe`: it was the probe. Returns the transition and a disable verdict. */
  report(
    signal: HealthSignal,
    probe: boolean,
  ): { readonly transition: BreakerTransition | null; readonly disable: DisableCause | null } {
    const now = this.#now();
    const s = this.#state;
    if (signal === 'gone') return { transition: null, disable: 'gone' };
    if (signal === 'neutral') return { transition: null, disable: null };
    if (signal === 'success') {
      // Closing starts the window afresh: the outage's failures must not trip it again at once.
      const buckets =
        s.phase === 'closed' ? this.#counted(now, false) : [{ startMs: now, attempts: 1, failures: 0 }];
      this.#state = { ...CLOSED_BREAKER, buckets };
      return {
        transition: s.phase === 'closed' ? null : { from: s.phase, to: 'closed', cause: 'success' },
        disable: null,
      };
    }
    const failingSinceMs = s.failingSinceMs ?? now;
    const next: BreakerState = {
      ...s,
      consecutiveFailures: s.consecutiveFailures + 1,
      buckets: this.#counted(now, true),
      failingSinceMs,
    };
    const disable = now - failingSinceMs >= this.#disableAfterMs ? 'failing' : null;
    if (s.phase === 'closed' && this.#settings.enabled) {
      const cause = this.#trips(next);
      if (cause !== null) {
        this.#state = {
          ...next,
          phase: 'open',
          openedAtMs: now,
          nextProbeAtMs: now + this.#settings.probeIntervalMs,
        };
        return { transition: { from: 'closed', to: 'open', cause }, disable };
      }
    } else if (s.phase === 'half-open' && probe) {
      // The next probe goes one interval after this one's answer, so the endpoint sees the two at
      // least an interval apart however late this one was sent or reached it.
      this.#state = { ...next, phase: 'open', nextProbeAtMs: now + this.#settings.probeIntervalMs };
      return { transition: { from: 'half-open', to: 'open', cause: 'probe-failed' }, disable };
    }
    this.#state = next;
    return { transition: null, disable };
  }

  /** What the shared store says (another instance opened or closed it); null: closed there. */
  adopt(shared: SharedOpen | null): BreakerTransition | null {
    const s = this.#state;
    if (shared === null) {
      if (s.phase === 'closed') return null;
      this.#state = CLOSED_BREAKER;
      return { from: s.phase, to: 'closed', cause: 'shared-close' };
    }
    if (s.phase !== 'closed' || !this.#settings.enabled) return null;
    const since = [s.failingSinceMs, shared.failingSinceMs].filter((t): t is number => t !== null);
    this.#state = {
      ...s,
      phase: 'open',
      openedAtMs: shared.openedAtMs,
      nextProbeAtMs: this.#now() + this.#settings.probeIntervalMs,
      failingSinceMs: since.length === 0 ? null : Math.min(...since),
    };
    return { from: 'closed', to: 'open', cause: 'shared-open' };
  }

  #trips(s: BreakerState): TransitionCause | null {
    if (s.consecutiveFailures >= this.#settings.consecutiveFailures) return 'consecutive-failures';
    let attempts = 0;
    let failures = 0;
    for (const b of s.buckets) {
      attempts += b.attempts;
      failures += b.failures;
    }
    if (attempts >= this.#settings.minAttempts && failures / attempts >= this.#settings.failureRatio)
      return 'failure-ratio';
    return null;
  }

  /** The window's slices with this attempt counted and slices that left the window dropped. */
  #counted(now: number, failed: boolean): WindowBucket[] {
    const { windowMs } = this.#settings;
    const sliceMs = windowMs / SLICES;
    const start = Math.floor(now / sliceMs) * sliceMs;
    const kept = this.#state.buckets.filter((b) => b.startMs > now - windowMs);
    const last = kept.at(-1);
    const add = failed ? 1 : 0;
    if (last !== undefined && last.startMs === start)
      kept[kept.length - 1] = { startMs: start, attempts: last.attempts + 1, failures: last.failures + add };
    else kept.push({ startMs: start, attempts: 1, failures: add });
    return kept;
  }
}
