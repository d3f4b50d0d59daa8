/** Past this many taken items, and once they are half the array, the array is compacted. */
const COMPACT_AFTER = 1024;

/**
 * Items taken in the order pushed. Taking moves an index rather than copying the array, and lets
 * go of the item at once, so a queue that never empties (a tenant that always has more waiting)
 * holds only what waits.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Slots of the array behind it, taken ones not yet compacted away included. */
  get slots(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  take(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head++;
    if (this.#head === this.#items.length) this.clear();
    else if (this.#head > COMPACT_AFTER && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}
