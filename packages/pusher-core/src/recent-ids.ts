/**
 * Which record first carried each of the last `capacity` ids (oldest forgotten first). A
 * record read again (a rejoin re-reads from the ledger) still owns its id; another record
 * with the same id is a copy.
 */
export class RecentIds {
  readonly #capacity: number;
  readonly #owners = new Map<string, string>();

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.#capacity = capacity;
  }

  /** True for the record that first carried this id (while it is remembered), false for a copy. */
  owns(id: string, record: string): boolean {
    const owner = this.#owners.get(id);
    if (owner !== undefined) return owner === record;
    this.#owners.set(id, record);
    if (this.#owners.size > this.#capacity) {
      const oldest = this.#owners.keys().next();
      if (!oldest.done) this.#owners.delete(oldest.value);
    }
    return true;
  }
}
