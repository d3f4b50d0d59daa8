import { Fifo } from '@hookstream/concurrency';
import type { RateSettings } from '@hookstream/contracts';

/** The destination's limiter as the turns use it (DestinationLimiter). */
export interface TurnsLimiter {
  /** Runs fn when the destination may take one more request; null when the signal aborted first. */
  schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T | null>;
  pauseFor(ms: number): void;
}

/**
 * How many requests wait in the limiter at once: one where the rate spaces requests 5 ms apart
 * or more (strict turns), more above that, where a handoff per start would cost rate, and never
 * more than can be in flight.
 */
export function turnsAhead(rate: RateSettings, concurrency: number): number {
  return Math.min(concurrency, Math.max(1, Math.ceil((rate.perSecond + rate.burst) / 200)));
}

/** A request waiting for its tenant's turn. */
interface Waiting {
  readonly go: () => void;
  /** Ended (aborted) while it waited: passed over when its turn comes. */
  gone: boolean;
}

/**
 * A subscriber's requests to a rate-limited destination, a tenant at a time in turn (fairness
 * `tenant`): the limiter starts requests in the order they reach it, so a tenant's burst queued
 * there first would take the whole rate until it drains. Here each tenant's requests wait in a
 * line of their own, and only `ahead` of them at a time (turnsAhead) are handed to the limiter to
 * wait for their start: when one starts, the next tenant in turn hands over its oldest. Every
 * tenant with requests waiting so gets an equal share of the rate. Requests without a tenant
 * share as one.
 */
export class TenantTurns {
  readonly #limiter: TurnsLimiter;
  readonly #ahead: number;
  /** Tenant → its waiting requests; the map's order is the turn order. */
  readonly #lines = new Map<string, Fifo<Waiting>>();
  /** Handed to the limiter and not started yet. */
  #handed = 0;
  /** Waiting in the lines, not counting those that ended there. */
  #waiting = 0;

  constructor(limiter: TurnsLimiter, options: { readonly ahead?: number } = {}) {
    this.#limiter = limiter;
    this.#ahead = Math.max(1, options.ahead ?? 1);
  }

  /** Requests waiting for their tenant's turn (not yet handed to the limiter). */
  get waiting(): number {
    return this.#waiting;
  }

  /** Runs fn in `tenant`'s turn, when the limiter allows; null when the signal aborted before it started. */
  schedule<T>(fn: () => Promise<T>, signal: AbortSignal, tenant?: string): Promise<T | null> {
    if (signal.aborted) return Promise.resolve(null);
    return new Promise<T | null>((resolve, reject) => {
      const onAbort = () => {
        waiting.gone = true;
        this.#waiting--;
        resolve(null);
      };
      const waiting: Waiting = {
        gone: false,
        go: () => {
          signal.removeEventListener('abort', onAbort);
          this.#waiting--;
          this.#handed++;
          let started = false;
          const start = () => {
            if (started) return;
            started = true;
            this.#handed--;
            this.#next();
          };
          this.#limiter
            .schedule(() => {
              start();
              return fn();
            }, signal)
            .then(resolve, reject)
            // Aborted or refused inside the limiter without starting: its place goes on.
            .finally(start);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const key = tenant ?? '';
      let line = this.#lines.get(key);
      if (line === undefined) {
        line = new Fifo<Waiting>();
        this.#lines.set(key, line);
      }
      line.push(waiting);
      this.#waiting++;
      this.#next();
    });
  }

  pauseFor(ms: number): void {
    this.#limiter.pauseFor(ms);
  }

  /** Hands over requests, a tenant at a time, while fewer than `ahead` wait in the limiter. */
  #next(): void {
    while (this.#handed < this.#ahead) {
      const waiting = this.#takeTurn();
      if (waiting === undefined) return;
      waiting.go();
    }
  }

  #takeTurn(): Waiting | undefined {
    for (const [tenant, line] of this.#lines) {
      this.#lines.delete(tenant);
      let waiting = line.take();
      while (waiting?.gone) waiting = line.take();
      // Its turn used: to the back of the line of tenants, or out while it has nothing waiting.
      if (line.length > 0) this.#lines.set(tenant, line);
      if (waiting !== undefined) return waiting;
    }
    return undefined;
  }
}
