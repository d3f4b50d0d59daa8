export interface DedupWindowOptions {
  readonly windowMs: number;
  /** Bound on memory: the oldest ids are forgotten first once this many are remembered. */
  readonly maxEntries: number;
  readonly now?: () => number;
}

interface Entry<R> {
  /** What was submitted under the id (a digest), so a different event reusing it is told apart. */
  readonly fingerprint: string;
  /** Until the write settles; then dropped, so a remembered id holds only its small result. */
  pending: Promise<R> | null;
  value: R | undefined;
  readonly expiresAt: number;
}

/**
 * Remembers the outcome of each event id for a while, in this process's memory, so a repeated
 * submission returns the first one's result instead of writing again. An id is claimed before
 * its write starts (a concurrent duplicate waits for that write), settled with the result, or
 * forgotten when the write failed, so retrying it really writes.
 */
export class DedupWindow<R> {
  readonly #entries = new Map<string, Entry<R>>();
  /**
   * Claims in order, for eviction. Not the Map's own order: a fresh Map iterator walks over
   * every slot deleted at the front since the last rehash, which made a full window slow.
   */
  #order: { readonly id: string; readonly expiresAt: number }[] = [];
  #head = 0;
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
    return this.find(id)?.result;
  }

  /** Like lookup, with the fingerprint the id was claimed with. */
  find(id: string): { readonly fingerprint: string; readonly result: Promise<R> } | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return { fingerprint: entry.fingerprint, result: entry.pending ?? Promise.resolve(entry.value as R) };
  }

  /** Marks the id as being written; `pending` settles with the write's result. */
  claim(id: string, pending: Promise<R>, fingerprint = ''): void {
    if (this.#windowMs <= 0) return;
    this.#evict();
    const expiresAt = this.#now() + this.#windowMs;
    this.#entries.set(id, { fingerprint, pending, value: undefined, expiresAt });
    this.#order.push({ id, expiresAt });
  }

  /** The write of a claimed id succeeded. */
  settle(id: string, value: R): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    entry.pending = null;
    entry.value = value;
  }

  /** The write of a claimed id failed: a later submission writes again. */
  forget(id: string): void {
    this.#entries.delete(id);
  }

  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    // One window length for all, so claim order is expiry order.
    const now = this.#now();
    while (this.#head < this.#order.length) {
      const oldest = this.#order[this.#head] as { id: string; expiresAt: number };
      const entry = this.#entries.get(oldest.id);
      // Forgotten or claimed again since: that later claim has its own place in the order.
      const current = entry !== undefined && entry.expiresAt === oldest.expiresAt;
      if (current && oldest.expiresAt > now && this.#entries.size < this.#maxEntries) break;
      if (current) this.#entries.delete(oldest.id);
      this.#head += 1;
    }
    if (this.#head > 4096 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
  }
}
