/**
 * A token bucket holding at most `capacity` tokens, refilled continuously at `perSecond`.
 * reserve() always takes a token, letting the balance go negative, and says how long the caller
 * must wait for it: one synchronous step, so concurrent callers queue fairly and the rate holds
 * without a lock. In any window of T seconds at most capacity + perSecond·T tokens are spent.
 */
export class TokenBucket {
  readonly #capacity: number;
  readonly #perMs: number;
  #tokens: number;
  #last: number;

  constructor(perSecond: number, capacity: number, nowMs: number) {
    if (!(perSecond > 0) || !(capacity >= 1))
      throw new RangeError('a token bucket needs perSecond > 0 and capacity >= 1');
    this.#perMs = perSecond / 1000;
    this.#capacity = capacity;
    this.#tokens = capacity;
    this.#last = nowMs;
  }

  /** Takes one token; returns the ms to wait before using it (0 when it is there now). */
  reserve(nowMs: number): number {
    this.#tokens = Math.min(this.#capacity, this.#tokens + (nowMs - this.#last) * this.#perMs);
    this.#last = nowMs;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : -this.#tokens / this.#perMs;
  }
}
