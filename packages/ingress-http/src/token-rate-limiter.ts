/**
 * A token bucket per producer: `perSecond` requests a second, up to `burst` at once after a
 * quiet spell. The producers are the configured tokens, so the map is bounded by that table.
 */
export class TokenRateLimiter {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: { perSecond: number; burst: number; now?: () => number }) {
    this.#perSecond = options.perSecond;
    this.#burst = options.burst;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Takes one request's token: 0 when allowed, else the whole seconds to wait (Retry-After). */
  take(producer: string): number {
    const now = this.#now();
    const bucket = this.#buckets.get(producer) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#perSecond);
    bucket.at = now;
    this.#buckets.set(producer, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perSecond));
  }
}
