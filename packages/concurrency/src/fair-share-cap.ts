/** One holder's view of a FairShareCap: what a destination limiter acquires and releases. */
export interface CapShare {
  /** Undefined at once when a slot is free, else resolves when one is granted to this holder. */
  acquire(): Promise<void> | undefined;
  release(): void;
}

/**
 * A bound on work in flight shared by many holders (a fleet's subscribers). Uncontended it is a
 * counter. Full, a freed slot goes to the waiting holder that holds the fewest slots (ties: the
 * one waiting longest), so a holder whose work is slow (30 s responses) cannot take the slots
 * that the others need: it gets no new slot while a holder with fewer waits, and its share
 * shrinks as its own requests end. Within one holder, waiters are served in arrival order.
 */
export class FairShareCap {
  readonly #size: number;
  #inUse = 0;
  readonly #held = new Map<string, number>();
  /** Holders with waiters, longest waiting first, each with its waiters in arrival order. */
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a cap needs a positive size, got ${size}`);
    this.#size = size;
  }

  /** The share of one holder (a subscriber's name). */
  share(holder: string): CapShare {
    return { acquire: () => this.acquire(holder), release: () => this.release(holder) };
  }

  acquire(holder: string): Promise<void> | undefined {
    // Waiters exist only while every slot is in use: release hands a freed slot on at once.
    if (this.#inUse < this.#size) {
      this.#grant(holder);
      return undefined;
    }
    return new Promise((resolve) => {
      const queue = this.#waiting.get(holder);
      if (queue) queue.push(resolve);
      else this.#waiting.set(holder, [resolve]);
    });
  }

  release(holder: string): void {
    const held = this.#held.get(holder) ?? 0;
    if (held <= 0) throw new Error(`release without a slot held by ${holder}`);
    if (held === 1) this.#held.delete(holder);
    else this.#held.set(holder, held - 1);
    this.#inUse--;
    const next = this.#fewestHeld();
    if (next === undefined) return;
    const queue = this.#waiting.get(next) ?? [];
    const resolve = queue.shift();
    // Served holders go to the back of the line among equals.
    this.#waiting.delete(next);
    if (queue.length > 0) this.#waiting.set(next, queue);
    this.#grant(next);
    resolve?.();
  }

  get inUse(): number {
    return this.#inUse;
  }

  /** Slots the holder has now. */
  heldBy(holder: string): number {
    return this.#held.get(holder) ?? 0;
  }

  #grant(holder: string): void {
    this.#inUse++;
    this.#held.set(holder, (this.#held.get(holder) ?? 0) + 1);
  }

  #fewestHeld(): string | undefined {
    let best: string | undefined;
    let bestHeld = Number.POSITIVE_INFINITY;
    for (const holder of this.#waiting.keys()) {
      const held = this.#held.get(holder) ?? 0;
      if (held < bestHeld) {
        best = holder;
        bestHeld = held;
      }
    }
    return best;
  }
}
