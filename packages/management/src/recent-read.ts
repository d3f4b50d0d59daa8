/**
 * A read answered from its last result while that is younger than `maxAgeMs`; once older, the
 * last result is still answered and one read in the background replaces it; once older than
 * `maxStaleMs`, the caller waits for a fresh read. For figures that are themselves periodic
 * reports or measurements (pusher instance statuses, published every few seconds; a page's lag):
 * a caller that asks often never pays for the read, and one that asks after a quiet spell gets a
 * fresh answer. A failed background read keeps the last result; a failed read a caller waits for
 * is thrown to it and tried again by the next.
 */
export class RecentRead<T> {
  readonly #read: () => Promise<T>;
  readonly #maxAgeMs: number;
  readonly #maxStaleMs: number;
  readonly #now: () => number;
  #last: { readonly value: T; readonly atMs: number } | null = null;
  #reading: Promise<T> | null = null;

  constructor(
    read: () => Promise<T>,
    ages: { readonly maxAgeMs: number; readonly maxStaleMs: number },
    now: () => number = Date.now,
  ) {
    this.#read = read;
    this.#maxAgeMs = ages.maxAgeMs;
    this.#maxStaleMs = Math.max(ages.maxAgeMs, ages.maxStaleMs);
    this.#now = now;
  }

  get(): Promise<T> {
    const last = this.#last;
    const age = last === null ? Number.POSITIVE_INFINITY : this.#now() - last.atMs;
    if (last !== null && age < this.#maxAgeMs) return Promise.resolve(last.value);
    const reading = this.#refresh();
    if (last === null || age >= this.#maxStaleMs) return reading;
    reading.catch(() => undefined);
    return Promise.resolve(last.value);
  }

  #refresh(): Promise<T> {
    this.#reading ??= this.#read()
      .then((value) => {
        this.#last = { value, atMs: this.#now() };
        return value;
      })
      .finally(() => {
        this.#reading = null;
      });
    return this.#reading;
  }
}
