/** A small seeded PRNG (mulberry32), so a failing fuzz run can be replayed from its seed. */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  string(maxLength = 12): string {
    const alphabet = 'abcXYZ019 _-.:"\\/{}[]\u00e9\u2603\u0000';
    return Array.from({ length: this.int(maxLength + 1) }, () => this.pick([...alphabet])).join('');
  }

  bytes(maxLength = 200): Uint8Array {
    return Uint8Array.from({ length: this.int(maxLength + 1) }, () => this.int(256));
  }

  /** Any JSON value, nested up to depth. */
  json(depth = 3): unknown {
    const kinds = depth > 0 ? 7 : 5;
    switch (this.int(kinds)) {
      case 0:
        return null;
      case 1:
        return this.next() < 0.5;
      case 2:
        return this.pick([0, -1, 1.5, 2 ** 31, Number.MAX_SAFE_INTEGER, 1e308]);
      case 3:
      case 4:
        return this.string();
      case 5:
        return Array.from({ length: this.int(4) }, () => this.json(depth - 1));
      default:
        return Object.fromEntries(
          Array.from({ length: this.int(4) }, () => [this.string(6), this.json(depth - 1)]),
        );
    }
  }
}
