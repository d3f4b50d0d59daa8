import type { SharedOpen } from './breaker-policy.ts';

/**
 * Where the instances of one destination share its breaker: whether it is open (and since
 * when it fails) and who holds the probe slot. RedisBreakerStore in production; without a
 * store the breaker is per process.
 */
export interface BreakerStore {
  /** The shared open state; null: closed (or never opened). */
  read(): Promise<SharedOpen | null>;
  open(state: SharedOpen): Promise<void>;
  close(): Promise<void>;
  /** Claims the probe slot for ttlMs: true when this caller got it, else the ms it is still held. */
  claimProbe(ttlMs: number): Promise<true | { readonly heldForMs: number }>;
  /** Holds the probe slot for ttlMs from now, whoever held it: a failed probe's answer. */
  holdProbe(ttlMs: number): Promise<void>;
  stop(): Promise<void>;
}
