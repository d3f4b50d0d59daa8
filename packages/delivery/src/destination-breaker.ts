import type { BreakerSettings } from '@hookstream/contracts';
import {
  type BreakerPhase,
  BreakerPolicy,
  type BreakerState,
  type BreakerTransition,
  type DisableCause,
  type HealthSignal,
  type TransitionCause,
} from './breaker-policy.ts';
import type { BreakerStore } from './breaker-store.ts';

export interface DestinationBreakerOptions {
  readonly settings: BreakerSettings;
  readonly disableAfterMs: number;
  /** Shared with the destination's other instances; per process without one. */
  readonly store?: BreakerStore;
  /** How often the shared state is read (default 1 s). */
  readonly pollMs?: number;
  /** One call per transition (logs, metrics); `failingSinceMs` as the breaker knows it. */
  readonly onTransition?: (transition: BreakerTransition, failingSinceMs: number | null) => void;
  /**
   * The breaker opened or closed for the whole fleet, told to the one instance whose write made
   * the change (per process without a store): what a notice about it is sent from.
   */
  readonly onFleetChange?: (change: FleetBreakerChange) => void;
  /** A shared-store call failed; the breaker goes on per process until the store answers. */
  readonly onStoreError?: (error: unknown) => void;
  readonly now?: () => number;
}

/** An opening or a closing of the destination's breaker, as the fleet saw it. */
export type FleetBreakerChange =
  | {
      readonly kind: 'opened';
      readonly cause: TransitionCause;
      readonly openedAtMs: number;
      readonly failingSinceMs: number | null;
    }
  | {
      readonly kind: 'closed';
      /** The opening it ends. */
      readonly openedAtMs: number;
      readonly failingSinceMs: number | null;
      readonly closedAtMs: number;
    };

/** Why a record may go, or why it stopped waiting. */
export type BreakerAdmission = 'go' | 'probe' | 'expired' | 'aborted';

/**
 * One destination's circuit breaker at the edges: records wait in admit() while it is open,
 * one of them at a time is let out as the probe (claimed in the shared store when there is
 * one), and report() feeds each outcome to the pure BreakerPolicy and writes what changes.
 */
export class DestinationBreaker {
  readonly #policy: BreakerPolicy;
  readonly #options: DestinationBreakerOptions;
  readonly #now: () => number;
  readonly #wakers = new Set<() => void>();
  #writes: Promise<void> = Promise.resolve();
  #claiming: Promise<void> | null = null;
  #poll: NodeJS.Timeout | undefined;
  #held = false;

  constructor(options: DestinationBreakerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#policy = new BreakerPolicy({
      settings: options.settings,
      disableAfterMs: options.disableAfterMs,
      now: this.#now,
    });
  }

  get phase(): BreakerPhase {
    return this.#policy.state.phase;
  }

  get failingSinceMs(): number | null {
    return this.#policy.state.failingSinceMs;
  }

  /** Reads the shared state once and keeps following it. */
  async start(): Promise<void> {
    const store = this.#options.store;
    if (store === undefined) return;
    await this.#refresh();
    this.#poll = setInterval(() => void this.#refresh(), this.#options.pollMs ?? 1000);
    this.#poll.unref();
  }

  /**
   * Resolves when the record may be attempted: at once while closed; while open, when the
   * breaker closes or this record becomes the probe. `expired` once untilMs passes (the event's
   * age ceiling), `aborted` when the signal aborts (the consumer stops or loses the partition).
   */
  async admit(signal: AbortSignal, untilMs: number): Promise<BreakerAdmission> {
    for (;;) {
      if (signal.aborted) return 'aborted';
      if (this.#now() >= untilMs && this.phase !== 'closed') return 'expired';
      if (this.#held) {
        await this.#sleep(untilMs, signal);
        continue;
      }
      const admission = this.#policy.admit();
      if (admission.kind === 'go') return 'go';
      if (admission.kind === 'wait') {
        await this.#sleep(Math.min(admission.untilMs, untilMs), signal);
        continue;
      }
      if (await this.#claimProbe()) return 'probe';
    }
  }

  /** One attempt's outcome; returns why the subscriber must be disabled, if it must. */
  report(signal: HealthSignal, probe: boolean): DisableCause | null {
    const before = this.#policy.state;
    const { transition, disable } = this.#policy.report(signal, probe);
    if (transition !== null) this.#changed(transition, true, before);
    return disable;
  }

  /** Every record waits until its signal aborts: the subscriber is being disabled. */
  hold(): void {
    this.#held = true;
  }

  /** Lets records go again (disabling failed: delivery goes on as before). */
  release(): void {
    this.#held = false;
    this.#wake();
  }

  async stop(): Promise<void> {
    clearInterval(this.#poll);
    this.#wake();
    await this.#writes;
    await this.#options.store?.stop();
  }

  /**
   * True when this record is the probe. Claims are made one at a time, so the records that
   * woke together do not all ask the store; those that lose wait for the next slot.
   */
  async #claimProbe(): Promise<boolean> {
    if (this.#claiming !== null) {
      await this.#claiming;
      return false;
    }
    const store = this.#options.store;
    if (store === undefined) {
      this.#sent();
      return true;
    }
    let won = false;
    this.#claiming = store
      .claimProbe(this.#options.settings.probeIntervalMs)
      .then(
        (claim) => {
          if (claim === true) {
            won = true;
            this.#sent();
          } else this.#policy.probeTaken(this.#now() + claim.heldForMs);
        },
        (err: unknown) => {
          // Without the store, this process probes on its own rather than never.
          this.#options.onStoreError?.(err);
          won = true;
          this.#sent();
        },
      )
      .finally(() => {
        this.#claiming = null;
      });
    await this.#claiming;
    return won;
  }

  #sent(): void {
    const transition = this.#policy.probeSent();
    if (transition !== null) this.#options.onTransition?.(transition, this.failingSinceMs);
  }

  /** A transition: told to the owner; when it was this instance's own, written to the store. */
  #changed(transition: BreakerTransition, own: boolean, before: BreakerState = this.#policy.state): void {
    this.#options.onTransition?.(transition, this.failingSinceMs);
    this.#wake();
    if (!own) return;
    const store = this.#options.store;
    if (store === undefined) this.#changedAlone(transition, before);
    else this.#write(store, transition);
  }

  /** Without a store, this process's breaker is the fleet's: its own opening or closing is one. */
  #changedAlone(transition: BreakerTransition, before: BreakerState): void {
    const state = this.#policy.state;
    if (transition.to === 'open' && transition.from === 'closed')
      this.#options.onFleetChange?.({
        kind: 'opened',
        cause: transition.cause,
        openedAtMs: state.openedAtMs ?? this.#now(),
        failingSinceMs: state.failingSinceMs,
      });
    else if (transition.to === 'closed' && before.openedAtMs !== null)
      this.#options.onFleetChange?.({
        kind: 'closed',
        openedAtMs: before.openedAtMs,
        failingSinceMs: before.failingSinceMs,
        closedAtMs: this.#now(),
      });
  }

  /**
   * Writes this instance's own transition to the store. Of instances opening (or closing) it at
   * once, the store tells one that its write made the change: that one tells the fleet change.
   */
  #write(store: BreakerStore, transition: BreakerTransition): void {
    const state = this.#policy.state;
    const write =
      transition.to === 'closed'
        ? async () => {
            const ended = await store.close();
            if (ended !== null)
              this.#options.onFleetChange?.({ kind: 'closed', ...ended, closedAtMs: this.#now() });
          }
        : transition.to === 'open' && transition.from === 'closed'
          ? async () => {
              const shared = {
                openedAtMs: state.openedAtMs ?? this.#now(),
                failingSinceMs: state.failingSinceMs,
              };
              if (await store.open(shared))
                this.#options.onFleetChange?.({ kind: 'opened', cause: transition.cause, ...shared });
              // The first probe of all instances goes one interval after the opening.
              await store.claimProbe(this.#options.settings.probeIntervalMs);
            }
          : transition.cause === 'probe-failed'
            ? // The next probe of all instances goes one interval after this one's answer (the
              // claim's interval ran from before it was sent).
              () => store.holdProbe(this.#options.settings.probeIntervalMs)
            : null;
    if (write === null) return;
    this.#writes = this.#writes.then(write).catch((err: unknown) => this.#options.onStoreError?.(err));
  }

  /** Adopts what another instance decided; after this instance's own writes, never before them. */
  async #refresh(): Promise<void> {
    const store = this.#options.store;
    if (store === undefined) return;
    // Every write queued so far lands first: reading before this instance's own opening would
    // see it closed and close it again.
    for (let writes = this.#writes; ; writes = this.#writes) {
      await writes;
      if (writes === this.#writes) break;
    }
    try {
      const writes = this.#writes;
      const shared = await store.read();
      if (writes !== this.#writes) return;
      const transition = this.#policy.adopt(shared);
      if (transition !== null) this.#changed(transition, false);
    } catch (err) {
      this.#options.onStoreError?.(err);
    }
  }

  #wake(): void {
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
  }

  /** Until ms (epoch), a change of the breaker, or the signal aborting; the shorter. */
  #sleep(untilMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#wakers.delete(done);
        resolve();
      };
      // Capped, so a far deadline never overflows a timer and a missed wake is noticed.
      const timer = setTimeout(done, Math.min(Math.max(untilMs - this.#now(), 1), 60_000));
      signal.addEventListener('abort', done, { once: true });
      this.#wakers.add(done);
    });
  }
}
