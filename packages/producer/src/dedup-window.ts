export interface DedupWindowOptions {
  readonly windowMs: number;
  /** Bound on memory: the oldest ids are forgotten first once this many are remembered. */
  readonly maxEntries: number;
  readonly now?: () => number;
}

interface Entry<R> {
  readonly result: Promise<R>;
  readonly expiresAt: number;
}

/**
 * Remembers the outcome of each event id for a while, in this process's memory, so a repeated
 * submission returns the first one's result instead of writing again. A failed write is
 * forgotten at once, so retrying it really writes.
 */
export class DedupWindow<R> {
  readonly #entries = new Map<string, Entry<R>>();
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: DedupWindowOptions) {
    this.#windowMs = options.windowMs;
    this.#maxEntries = options.maxEntries;
    this.#now = options.now ?? Date.now;
  }

  /** The first submission's (possibly still pending) result, if the id was seen in the window. */
  lookup(id: string): Promise<R> | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry.result;
  }

  remember(id: string, result: Promise<R>): void {
    if (this.#windowMs <= 0) return;
    this.#evict();
    const entry = { result, expiresAt: this.#now() + this.#windowMs };
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    result.catch(() => {
      if (this.#entries.get(id) === entry) this.#entries.delete(id);
    });
  }

  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    // Insertion order is expiry order (one window length for all), so expired ids are in front.
    const now = this.#now();
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt > now && this.#entries.size < this.#maxEntries) break;
      this.#entries.delete(id);
    }
  }
}
