import {
  DEFAULT_BREAKER,
  DEFAULT_DISABLE_AFTER_MS,
  type LogFn,
  type SubscriberDefinition,
} from '@hookstream/contracts';
import {
  BREAKER_POLICY_VERSION,
  type BreakerAdmission,
  type BreakerPhase,
  type BreakerStore,
  type Classification,
  DestinationBreaker,
  type DisableCause,
  type FleetBreakerChange,
  healthSignal,
} from '@hookstream/delivery';

/** What the delivery step does after an attempt, as the destination's health says. */
export type HealthVerdict =
  /** As usual: acknowledge, retry in a tier, or dead-letter. */
  | 'as-usual'
  /** The breaker is open: the record waits in place again, no attempt spent. */
  | 'wait'
  /** The subscriber is being disabled: the record is left unsettled for after its resume. */
  | 'disable';

/** The destination's health as the delivery step uses it (EndpointHealth in production). */
export interface DeliveryHealth {
  readonly phase: BreakerPhase;
  /** Waits while the breaker is open (see DestinationBreaker.admit). */
  admit(signal: AbortSignal, untilMs: number): Promise<BreakerAdmission>;
  /** One attempt's classification; `probe`: it was the breaker's probe. */
  attempted(classification: Classification, probe: boolean, eventId: string): HealthVerdict;
}

/** Why hookstream disables the subscriber, for the record and the notice. */
export interface DisableVerdict {
  readonly cause: DisableCause;
  readonly reason: string;
  readonly status: number | null;
  readonly failingSinceMs: number | null;
}

export interface EndpointHealthOptions {
  readonly definition: SubscriberDefinition;
  readonly log: LogFn;
  /** Shared with the subscriber's other instances (Redis); per process without it. */
  readonly store?: BreakerStore;
  /**
   * Disables the subscriber (its catalog record, the notice). Records are held meanwhile; when
   * it throws, they go on as before and a later verdict tries again.
   */
  readonly disable: (verdict: DisableVerdict) => Promise<void>;
  /**
   * The breaker opened or closed for the fleet, and this instance made the change (see
   * DestinationBreakerOptions.onFleetChange); `lastFailure`: the last failed attempt it saw.
   */
  readonly announce?: (change: FleetBreakerChange, lastFailure: Classification | null) => void;
  readonly now?: () => number;
}

/**
 * One subscriber's endpoint health: its circuit breaker, the transition log lines, and the
 * decision to disable it (a 410, or failure for disableAfterMs) carried out once.
 */
export class EndpointHealth implements DeliveryHealth {
  readonly #breaker: DestinationBreaker;
  readonly #options: EndpointHealthOptions;
  #disabling = false;
  #lastFailure: Classification | null = null;

  constructor(options: EndpointHealthOptions) {
    this.#options = options;
    const settings = options.definition.breaker ?? DEFAULT_BREAKER;
    const { log } = options;
    this.#breaker = new DestinationBreaker({
      settings,
      disableAfterMs: options.definition.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS,
      ...(options.store ? { store: options.store } : {}),
      ...(options.now ? { now: options.now } : {}),
      onTransition: (t, failingSinceMs) =>
        log(t.to === 'closed' ? 'info' : 'warn', `breaker ${t.to}`, {
          from: t.from,
          cause: t.cause,
          failing_since: failingSinceMs === null ? null : new Date(failingSinceMs).toISOString(),
          probe_interval_ms: settings.probeIntervalMs,
          breaker_policy: BREAKER_POLICY_VERSION,
        }),
      onFleetChange: (change) => options.announce?.(change, this.#lastFailure),
      onStoreError: (err) =>
        log('warn', 'the shared breaker state is unreachable; this instance decides alone meanwhile', {
          error: err instanceof Error ? err.message : String(err),
        }),
    });
  }

  get phase(): BreakerPhase {
    return this.#breaker.phase;
  }

  start(): Promise<void> {
    return this.#breaker.start();
  }

  admit(signal: AbortSignal, untilMs: number): Promise<BreakerAdmission> {
    return this.#breaker.admit(signal, untilMs);
  }

  attempted(classification: Classification, probe: boolean, eventId: string): HealthVerdict {
    const signal = healthSignal(classification);
    if (signal === 'failure') this.#lastFailure = classification;
    const cause = this.#breaker.report(signal, probe);
    if (cause !== null) {
      this.#disable(cause, classification, eventId);
      return 'disable';
    }
    if (signal === 'failure' && this.#breaker.phase !== 'closed') return 'wait';
    return 'as-usual';
  }

  async stop(): Promise<void> {
    await this.#breaker.stop();
  }

  #disable(cause: DisableCause, classification: Classification, eventId: string): void {
    if (this.#disabling) return;
    this.#disabling = true;
    this.#breaker.hold();
    const failingSinceMs = this.#breaker.failingSinceMs;
    const verdict: DisableVerdict = {
      cause,
      status: cause === 'gone' ? classification.status : null,
      failingSinceMs,
      reason:
        cause === 'gone'
          ? `the endpoint answered 410 Gone (event ${eventId})`
          : `no successful delivery since ${new Date(failingSinceMs ?? Date.now()).toISOString()} (disableAfterMs ${
              this.#options.definition.disableAfterMs ?? DEFAULT_DISABLE_AFTER_MS
            })`,
    };
    this.#options.log('warn', 'disabling the subscriber', { cause, reason: verdict.reason });
    this.#options.disable(verdict).catch((err: unknown) => {
      this.#options.log('error', 'could not disable the subscriber; delivery goes on', {
        cause,
        error: err instanceof Error ? err.message : String(err),
      });
      this.#disabling = false;
      this.#breaker.release();
    });
  }
}
