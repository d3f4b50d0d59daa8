import { setTimeout as sleep } from 'node:timers/promises';
import type { RateSettings } from '@hookstream/contracts';
import Bottleneck from 'bottleneck';

export interface LimiterOptions {
  /** The destination's origin; instances sharing a datastore share the limit by this id. */
  readonly origin: string;
  readonly rate: RateSettings;
  readonly concurrency: number;
  /** The process-wide cap on requests in flight, shared by every destination of the process. */
  readonly inFlightCap?: InFlightCap;
}

/** A process-wide bound on requests in flight, whatever the destinations' own limits. */
export type InFlightCap = Bottleneck;

export function createInFlightCap(maxInFlight: number): InFlightCap {
  return new Bottleneck({ maxConcurrent: maxInFlight });
}

const DEFERRED: unique symbol = Symbol('deferred');

/** The job's result, or null as soon as the signal aborts; the listener never outlives the job. */
function untilAborted<T>(job: Promise<T>, signal: AbortSignal): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    job.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Rate and concurrency for one destination. A 429's Retry-After pauses the whole destination:
 * jobs that reach the front while it is paused give their slot back without sending, wait, and
 * queue again, so a resumed destination still sees requests spaced by the rate.
 */
export class DestinationLimiter {
  readonly #bottleneck: Bottleneck;
  #pausedUntil = 0;

  constructor(options: LimiterOptions) {
    this.#bottleneck = new Bottleneck({ id: `hookstream:${options.origin}`, ...bottleneckSettings(options) });
    if (options.inFlightCap) this.#bottleneck.chain(options.inFlightCap);
  }

  /**
   * Runs fn when the destination may take one more request. Resolves null, without running fn,
   * when the signal aborts first (a queued job cannot be removed from Bottleneck, so it later
   * runs as a no-op, but the caller does not wait for it).
   */
  async schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T | null> {
    let priority = 5;
    for (;;) {
      if (signal?.aborted) return null;
      const job = this.#bottleneck.schedule<T | typeof DEFERRED | null>({ priority }, () => {
        if (signal?.aborted) return Promise.resolve(null);
        return Date.now() < this.#pausedUntil ? Promise.resolve(DEFERRED) : fn();
      });
      const result = signal ? await untilAborted(job, signal) : await job;
      if (result !== DEFERRED) return result;
      // Deferred jobs go ahead of fresh ones, so a pause does not reorder the queue much.
      priority = 4;
      try {
        await sleep(Math.max(this.#pausedUntil - Date.now(), 1), undefined, signal ? { signal } : {});
      } catch {
        return null;
      }
    }
  }

  /** Holds every request to the destination back until now + ms (a 429's Retry-After). */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
  }

  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** Jobs queued or running. */
  pending(): number {
    const c = this.#bottleneck.counts();
    return c.RECEIVED + c.QUEUED + c.RUNNING + c.EXECUTING;
  }

  async stop(): Promise<void> {
    await this.#bottleneck.stop({ dropWaitingJobs: true });
  }
}

/**
 * Up to 200/s without burst, requests are spaced by minTime (exact timers; 1 % slack keeps
 * network jitter from letting rate+1 arrivals land in one second at the endpoint). Otherwise a
 * token bucket on Bottleneck's reservoir: refilled every period (one request's interval, at
 * least 100 ms so the heartbeat stays cheap), holding at most one period's tokens plus burst.
 */
export function bottleneckSettings(
  options: Pick<LimiterOptions, 'rate' | 'concurrency'>,
): Bottleneck.ConstructorOptions {
  const intervalMs = 1000 / options.rate.perSecond;
  if (options.rate.burst === 0 && intervalMs >= 5)
    return { maxConcurrent: options.concurrency, minTime: Math.ceil(intervalMs * 1.01) };
  const period = Math.max(Math.ceil(intervalMs), 100);
  const amount = Math.max(1, Math.floor((options.rate.perSecond * period) / 1000));
  const tokens = amount + options.rate.burst;
  // heartbeatInterval is a real Bottleneck option missing from its typings.
  return {
    maxConcurrent: options.concurrency,
    reservoir: tokens,
    reservoirIncreaseAmount: amount,
    reservoirIncreaseInterval: period,
    reservoirIncreaseMaximum: tokens,
    heartbeatInterval: Math.max(5, Math.floor(period / 10)),
  } as Bottleneck.ConstructorOptions;
}
