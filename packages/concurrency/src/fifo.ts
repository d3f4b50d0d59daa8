/** Items taken in the order pushed; taking moves an index rather than copying a long array. */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  take(): T | undefined {
    const item = this.#items[this.#head];
    if (item === undefined) return undefined;
    this.#head++;
    if (this.#head === this.#items.length) this.clear();
    return item;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}
