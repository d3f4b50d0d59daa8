import { setTimeout as sleep } from 'node:timers/promises';
import type { Arrival } from '@hookstream/receiver';
import { epochNow } from './open-loop.ts';

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

/**
 * Waits until `arrived()` (a count of distinct events, e.g. ArrivalWatch.update) reaches
 * `expected`, or nothing new arrived for `quietMs`, or `maxMs` passed; returns the last count.
 */
export async function waitForArrivals(
  arrived: () => number,
  expected: number,
  what: string,
  {
    quietMs = 20_000,
    maxMs = Number.POSITIVE_INFINITY,
    signal,
  }: { quietMs?: number; maxMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<number> {
  let seen = arrived();
  let progressAt = epochNow();
  const deadline = epochNow() + maxMs;
  while (seen < expected) {
    if (epochNow() > deadline) {
      process.stderr.write(
        `[bench] ${what}: ${expected - seen} events had not arrived after ${maxMs / 1000} s\n`,
      );
      break;
    }
    await sleep(5, undefined, signal ? { signal } : {});
    const count = arrived();
    if (count > seen) {
      seen = count;
      progressAt = epochNow();
    } else if (epochNow() - progressAt > quietMs) {
      process.stderr.write(
        `[bench] ${what}: ${expected - seen} events did not arrive within ${quietMs / 1000} s\n`,
      );
      break;
    }
  }
  return seen;
}
