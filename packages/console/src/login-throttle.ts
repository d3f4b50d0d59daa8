export interface LoginThrottleOptions {
  /** Logins one address may try per window (default 10). */
  readonly maxAttempts?: number;
  readonly windowMs?: number;
  /** Addresses remembered at most; the oldest window goes first, so a flood cannot grow memory. */
  readonly maxAddresses?: number;
  readonly now?: () => number;
}

/** Whether a login may be checked; when not, how long until it may, and whether this is the first refusal of the window. */
export type LoginVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number; readonly firstRefusal: boolean };

interface Window {
  readonly startMs: number;
  attempts: number;
}

export const DEFAULT_LOGIN_ATTEMPTS = 10;
export const DEFAULT_LOGIN_WINDOW_MS = 60_000;
const DEFAULT_MAX_ADDRESSES = 10_000;

/**
 * Login attempts per client address in fixed windows: past the limit a login is refused before
 * its token is compared, so guessing costs a window per few tries, and the right token does not
 * help while refused. Every attempt counts, good or bad.
 */
export class LoginThrottle {
  /** In window-start order: a renewed window is deleted and set again, so the oldest is first. */
  readonly #windows = new Map<string, Window>();
  readonly #maxAttempts: number;
  readonly #windowMs: number;
  readonly #maxAddresses: number;
  readonly #now: () => number;

  constructor(options: LoginThrottleOptions = {}) {
    this.#maxAttempts = options.maxAttempts ?? DEFAULT_LOGIN_ATTEMPTS;
    this.#windowMs = options.windowMs ?? DEFAULT_LOGIN_WINDOW_MS;
    this.#maxAddresses = options.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
    this.#now = options.now ?? Date.now;
  }

  /** Counts one attempt from `address`. */
  take(address: string): LoginVerdict {
    const now = this.#now();
    let window = this.#windows.get(address);
    if (window === undefined || window.startMs + this.#windowMs <= now) {
      this.#windows.delete(address);
      this.#evict(now);
      window = { startMs: now, attempts: 0 };
      this.#windows.set(address, window);
    }
    window.attempts += 1;
    if (window.attempts <= this.#maxAttempts) return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((window.startMs + this.#windowMs - now) / 1000)),
      firstRefusal: window.attempts === this.#maxAttempts + 1,
    };
  }

  /**
   * Whether `address` is refused now, without counting an attempt: for callers that count only
   * failures (the portal counts links that do not open).
   */
  refused(address: string): LoginVerdict {
    const now = this.#now();
    const window = this.#windows.get(address);
    if (window === undefined || window.startMs + this.#windowMs <= now || window.attempts < this.#maxAttempts)
      return { allowed: true };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((window.startMs + this.#windowMs - now) / 1000)),
      firstRefusal: false,
    };
  }

  get size(): number {
    return this.#windows.size;
  }

  #evict(now: number): void {
    for (const [address, w] of this.#windows) {
      if (w.startMs + this.#windowMs > now && this.#windows.size < this.#maxAddresses) break;
      this.#windows.delete(address);
    }
  }
}
