/** Attempts and successes of the last few minutes, as a subscriber's instances report them. */
export interface RecentAttemptCounts {
  readonly windowMs: number;
  readonly attempts: number;
  readonly delivered: number;
}

const BUCKET_MS = 10_000;

/**
 * HTTP attempts and their 2xx answers over a sliding window, in 10 s buckets: what the
 * console's "deliveries and success ratio over the last minutes" reads from each instance's
 * status report. Constant memory however many attempts; the clock is injected for tests.
 */
export class RecentAttempts {
  readonly windowMs: number;
  readonly #attempts: number[];
  readonly #delivered: number[];
  readonly #now: () => number;
  #bucket: number;

  constructor(windowMs = 5 * 60_000, now: () => number = Date.now) {
    const buckets = Math.max(1, Math.round(windowMs / BUCKET_MS));
    this.windowMs = buckets * BUCKET_MS;
    this.#attempts = new Array<number>(buckets).fill(0);
    this.#delivered = new Array<number>(buckets).fill(0);
    this.#now = now;
    this.#bucket = Math.floor(now() / BUCKET_MS);
  }

  /** One attempt ended; `delivered` when the endpoint acknowledged it. */
  record(delivered: boolean): void {
    const i = this.#advance();
    this.#attempts[i] = (this.#attempts[i] ?? 0) + 1;
    if (delivered) this.#delivered[i] = (this.#delivered[i] ?? 0) + 1;
  }

  counts(): RecentAttemptCounts {
    this.#advance();
    const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
    return { windowMs: this.windowMs, attempts: sum(this.#attempts), delivered: sum(this.#delivered) };
  }

  /** Clears the buckets the clock moved past; returns the current bucket's index. */
  #advance(): number {
    const size = this.#attempts.length;
    const bucket = Math.floor(this.#now() / BUCKET_MS);
    for (let b = Math.max(this.#bucket + 1, bucket - size + 1); b <= bucket; b++) {
      this.#attempts[b % size] = 0;
      this.#delivered[b % size] = 0;
    }
    this.#bucket = Math.max(this.#bucket, bucket);
    return bucket % size;
  }
}
