import type { SharedOpen } from './breaker-policy.ts';

/**
 * Where the instances of one destination share its breaker: whether it is open (and since
 * when it fails) and who holds the probe slot. RedisBreakerStore in production; without a
 * store the breaker is per process.
 */
export interface BreakerStore {
  /** The shared open state; null: closed (or never opened). */
  read(): Promise<SharedOpen | null>;
  /**
   * Opens it unless it is open already (the first opening's state stays); true when this call
   * opened it: of the instances racing to open it, exactly one hears true.
   */
  open(state: SharedOpen): Promise<boolean>;
  /** Closes it; the open state this call ended, null when it was closed already (one caller gets it). */
  close(): Promise<SharedOpen | null>;
  /** Claims the probe slot for ttlMs: true when this caller got it, else the ms it is still held. */
  claimProbe(ttlMs: number): Promise<true | { readonly heldForMs: number }>;
  /** Holds the probe slot for ttlMs from now, whoever held it: a failed probe's answer. */
  holdProbe(ttlMs: number): Promise<void>;
  stop(): Promise<void>;
}
