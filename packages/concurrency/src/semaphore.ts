/** A counting semaphore: at most `size` holders at once, waiters served in arrival order. */
export class Semaphore {
  readonly #size: number;
  #held = 0;
  readonly #waiters: (() => void)[] = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`a semaphore needs a positive size, got ${size}`);
    this.#size = size;
  }

  /** Undefined at once when a slot is free (no promise allocated), else resolves when one frees up. */
  acquire(): Promise<void> | undefined {
    if (this.#held < this.#size) {
      this.#held++;
      return undefined;
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    // The slot passes straight to the next waiter, so the count stays as it is.
    if (next) next();
    else this.#held--;
  }

  get held(): number {
    return this.#held;
  }
}
