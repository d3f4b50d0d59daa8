import type { Arrival } from '@hookstream/receiver';

/**
 * First accepted arrival per event id at a recording SampleReceiver, read incrementally from its
 * arrival list (redeliveries are counted, not timed: a receiver's effect happens once).
 */
export class ArrivalWatch {
  readonly #arrivals: readonly Arrival[];
  readonly first = new Map<string, number>();
  #read = 0;
  duplicates = 0;

  constructor(arrivals: readonly Arrival[]) {
    this.#arrivals = arrivals;
  }

  /** Takes in what arrived since the last call; returns how many distinct events arrived so far. */
  update(): number {
    for (; this.#read < this.#arrivals.length; this.#read++) {
      const a = this.#arrivals[this.#read];
      if (!a || a.eventId === null || a.status >= 300) continue;
      if (this.first.has(a.eventId)) this.duplicates++;
      else this.first.set(a.eventId, a.atMs);
    }
    return this.first.size;
  }
}
