/** Something that holds records it can let go of and fetch again (the tap's recent records). */
export interface MemoryCache {
  /** Lets go of at least `bytes` if it holds that much (releasing them); returns what it freed. */
  evict(bytes: number): number;
}

/**
 * The bytes of records a process keeps while they wait (the tap's recent records, the records an
 * events lane queued behind its window, a tier lane's records), one budget for the whole process.
 * A holder reserves a record's bytes when it keeps it and releases them when it lets it go. When
 * the budget is full, caches are evicted first; if that is not enough the holder takes nothing
 * more and pauses its fetch (records are never dropped), and it resumes as its own records end.
 * A holder that holds nothing is always granted one record, so a record larger than the free room
 * still goes through and nothing waits on another holder: the budget can be exceeded by at most
 * one record per holder.
 */
export class MemoryBudget {
  readonly limit: number;
  #held = 0;
  #pauses = 0;
  readonly #caches = new Set<MemoryCache>();
  readonly #paused = new Set<object>();

  constructor(limitBytes: number) {
    if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0)
      throw new RangeError(`a memory budget must be a positive number of bytes, got ${limitBytes}`);
    this.limit = limitBytes;
  }

  /** Bytes reserved now. */
  get held(): number {
    return this.#held;
  }

  /** Fetches paused now because the budget is full (one per partition). */
  get pausedFetches(): number {
    return this.#paused.size;
  }

  /** Times a fetch paused because the budget was full, since the process started. */
  get pauses(): number {
    return this.#pauses;
  }

  /**
   * Reserves `bytes` when they fit (after evicting caches if needed), or when the caller holds
   * nothing yet (`holding` is what it has reserved and not released). False: nothing reserved.
   */
  tryReserve(bytes: number, holding: number): boolean {
    if (this.#held + bytes > this.limit) this.#evict(this.#held + bytes - this.limit);
    if (this.#held + bytes > this.limit && holding > 0) return false;
    this.#held += bytes;
    return true;
  }

  /**
   * For a cache: reserves `bytes` when they fit after evicting caches (the oldest of the asking
   * cache too), and is never owed a record.
   */
  tryReserveForCache(bytes: number): boolean {
    if (this.#held + bytes > this.limit) this.#evict(this.#held + bytes - this.limit);
    if (this.#held + bytes > this.limit) return false;
    this.#held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }

  addCache(cache: MemoryCache): void {
    this.#caches.add(cache);
  }

  removeCache(cache: MemoryCache): void {
    this.#caches.delete(cache);
  }

  /** `fetch` (a holder's partition) stopped fetching because the budget is full; for the gauges. */
  fetchPaused(fetch: object): void {
    if (this.#paused.has(fetch)) return;
    this.#paused.add(fetch);
    this.#pauses++;
  }

  fetchResumed(fetch: object): void {
    this.#paused.delete(fetch);
  }

  #evict(bytes: number): void {
    let freed = 0;
    for (const cache of this.#caches) {
      if (freed >= bytes) return;
      freed += cache.evict(bytes - freed);
    }
  }
}

/** What one record costs while kept: its value, key and headers. */
export function recordBytes(record: {
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}): number {
  let bytes = record.value?.length ?? 0;
  if (record.key !== null) bytes += Buffer.byteLength(record.key);
  for (const name in record.headers) bytes += name.length + (record.headers[name]?.length ?? 0);
  return bytes;
}
