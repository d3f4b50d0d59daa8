/**
 * The ledger rule for one partition: records may settle in any order, but only the contiguous
 * settled prefix may be committed. Offsets are tracked as begun, so gaps in a partition's
 * offsets (compaction, transaction markers) never hold the prefix back.
 */
export class OffsetTracker {
  // Begun offsets in order; #head is the oldest not yet part of the settled prefix.
  #offsets: number[] = [];
  #head = 0;
  readonly #settledAhead = new Set<number>();
  #committable: number | null = null;

  /** Registers a record before its work starts; offsets must increase. */
  begin(offset: number): void {
    const last = this.#offsets[this.#offsets.length - 1];
    if (last !== undefined ? offset <= last : this.#committable !== null && offset <= this.#committable)
      throw new RangeError(`offset ${offset} begun out of order (after ${last ?? this.#committable})`);
    this.#offsets.push(offset);
  }

  /**
   * Marks a begun record settled. Returns the last offset of the settled prefix when this call
   * extended it (the caller resolves/commits up to it), otherwise null.
   */
  settle(offset: number): number | null {
    const head = this.#offsets[this.#head];
    if (offset !== head) {
      if (!this.#isPending(offset))
        throw new RangeError(`offset ${offset} was not begun or is already settled`);
      this.#settledAhead.add(offset);
      return null;
    }
    this.#head++;
    let last = offset;
    for (;;) {
      const next = this.#offsets[this.#head];
      if (next === undefined || !this.#settledAhead.delete(next)) break;
      last = next;
      this.#head++;
    }
    this.#committable = last;
    // Drop the settled prefix now and then, so the array does not grow with the partition.
    if (this.#head > 1024 && this.#head * 2 > this.#offsets.length) {
      this.#offsets = this.#offsets.slice(this.#head);
      this.#head = 0;
    }
    return last;
  }

  /** The last offset of the settled prefix, or null while nothing is settled. */
  get committable(): number | null {
    return this.#committable;
  }

  /** The oldest begun offset not settled (the committed prefix ends before it); null: none. */
  get firstUnsettled(): number | null {
    return this.#offsets[this.#head] ?? null;
  }

  /** Settled offsets beyond the settled prefix (ascending). */
  get settledAhead(): number[] {
    return [...this.#settledAhead].sort((a, b) => a - b);
  }

  /** Begun and not settled. */
  get unsettled(): number {
    return this.#offsets.length - this.#head - this.#settledAhead.size;
  }

  #isPending(offset: number): boolean {
    if (this.#settledAhead.has(offset)) return false;
    // Binary search: the begun offsets beyond the head are sorted.
    let lo = this.#head;
    let hi = this.#offsets.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.#offsets[mid] ?? 0;
      if (v === offset) return true;
      if (v < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}
