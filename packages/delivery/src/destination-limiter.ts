import { setTimeout as sleep } from 'node:timers/promises';
import { type CapShare, FairShareCap, Semaphore } from '@hookstream/concurrency';
import type { RateSettings } from '@hookstream/contracts';
import Bottleneck from 'bottleneck';
import { ArrivalWindow } from './arrival-window.ts';
import type { RedisConnections } from './redis-connections.ts';
import { boundedPauseUntil } from './retry-after.ts';
import { SharedWindow, sharedWindowSettings } from './shared-window.ts';
import { StartSchedule } from './start-schedule.ts';
import { TokenBucket } from './token-bucket.ts';

export interface LimiterOptions {
  /** The destination's origin; instances sharing a datastore share the limit by this id. */
  readonly origin: string;
  readonly rate: RateSettings;
  readonly concurrency: number;
  /** This subscriber's share of the process-wide cap on requests in flight. */
  readonly inFlightCap?: CapShare;
  /**
   * Shares rate, concurrency and 429 pauses with every instance using the same Redis and
   * clusterId (Bottleneck clustering), so the limit holds across a subscriber's instances.
   */
  readonly cluster?: { readonly redis: RedisConnections; readonly clusterId: string };
}

/**
 * A process-wide bound on requests in flight, whatever the destinations' own limits, shared
 * fairly: when it is full, a freed slot goes to the subscriber holding the fewest.
 */
export type InFlightCap = FairShareCap;

export function createInFlightCap(maxInFlight: number): InFlightCap {
  return new FairShareCap(maxInFlight);
}

/**
 * How a destination's limits are kept. `clustered`: instances sharing Redis go through clustered
 * Bottleneck for concurrency, spacing and 429 pauses, and claim every send in a window shared
 * through Redis (SharedWindow), which bounds what all of them send together. In one process,
 * Bottleneck's per-job bookkeeping (events, async steps, a timer per job) costs more than the
 * delivery around it once a process hosts many subscribers, and its local datastore caps near a
 * thousand jobs a second; so `spaced` (up to 200/s without burst) starts each request on a local
 * schedule (StartSchedule) within an arrival window, the same spacing the clustered limiter
 * keeps at the wire, and `bucket` (faster, or with a burst) uses a token bucket; both bound
 * concurrency with a semaphore.
 */
export function limiterMode(
  options: Pick<LimiterOptions, 'rate' | 'cluster'>,
): 'clustered' | 'spaced' | 'bucket' {
  if (options.cluster) return 'clustered';
  return options.rate.burst === 0 && options.rate.perSecond <= 200 ? 'spaced' : 'bucket';
}

const SLACK = 1.01;

/** How early a start may go against its schedule: absorbs Node's timer lateness (see StartSchedule). */
const SPACING_TOLERANCE_MS = 2;

const DEFERRED: unique symbol = Symbol('deferred');

/** Sleeps ms; false when the signal aborted first. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await sleep(ms, undefined, signal ? { signal } : {});
    return true;
  } catch {
    return false;
  }
}

/**
 * The job's result, or null as soon as the signal aborts before the job's work has started; once
 * it has (`started()`), its result: a request already on its way must be seen to its answer, or
 * the caller would take a sent attempt for one never made. The listener never outlives the job.
 */
function untilAborted<T>(job: Promise<T>, signal: AbortSignal, started: () => boolean): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      if (!started()) resolve(null);
    };
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
  readonly #bottleneck: Bottleneck | null = null;
  readonly #bucket: TokenBucket | null = null;
  readonly #concurrency: Semaphore | null = null;
  readonly #cap: CapShare | undefined;
  #pausedUntil = 0;
  // Bottleneck spaces planned start times; a late timer can run one job late and the next on
  // time, bunching them. A local schedule of actual starts keeps the spacing at the wire.
  readonly #schedule: StartSchedule | null = null;
  readonly #window: ArrivalWindow | null = null;
  // Clustered only: each instance's arrival window sees its own sends alone, so two instances
  // spaced apart at dispatch can still land limit+1 requests in one second at the endpoint. The
  // shared window bounds the sends of all instances together; Bottleneck still shares
  // concurrency, the 429 pauses and the even spacing inside the window.
  readonly #shared: SharedWindow | null = null;
  // One job at a time waits for its start, so the check and the claim of a start stay together
  // even when the claim is a round trip to Redis.
  #startTurn: Promise<void> = Promise.resolve();

  constructor(options: LimiterOptions) {
    this.#cap = options.inFlightCap;
    const settings = bottleneckSettings(options);
    // Spaced wherever Bottleneck spaces (no burst, up to 200/s), by the rate with 1 % slack.
    const mode = limiterMode(options);
    if (mode === 'bucket') {
      this.#bucket = new TokenBucket(
        options.rate.perSecond,
        Math.max(1, options.rate.burst),
        performance.now(),
      );
      this.#concurrency = new Semaphore(options.concurrency);
      return;
    }
    // Spaced by the rate with 1 % slack, no burst.
    const gapMs = settings.minTime === undefined ? 0 : (1000 / options.rate.perSecond) * SLACK;
    const spacing = { gapMs, toleranceMs: Math.min(SPACING_TOLERANCE_MS, gapMs) };
    if (gapMs > 0) this.#schedule = new StartSchedule(spacing.gapMs, spacing.toleranceMs);
    this.#window = new ArrivalWindow(Math.max(1, Math.floor(options.rate.perSecond + options.rate.burst)));
    if (mode === 'spaced' || !options.cluster) {
      this.#concurrency = new Semaphore(options.concurrency);
      return;
    }
    this.#shared = new SharedWindow(
      options.cluster.redis,
      options.cluster.clusterId,
      sharedWindowSettings(options.rate),
      spacing,
    );
    this.#bottleneck = new Bottleneck({
      ...settings,
      id: `hookstream:${options.cluster.clusterId}`,
      datastore: 'ioredis',
      connection: options.cluster.redis.bottleneck(),
      clearDatastore: false,
      // Keys of a limiter nobody has used for this long expire from Redis.
      timeout: 600_000,
    });
    // A 429 seen by any instance pauses the destination on all of them.
    this.#bottleneck.on('message', (message: string) => {
      this.#pausedUntil = Math.max(this.#pausedUntil, boundedPauseUntil(Number(message), Date.now()));
    });
  }

  /** Resolves once the datastore (Redis, when clustered) is connected. */
  async ready(): Promise<void> {
    await Promise.all([this.#bottleneck?.ready(), this.#shared?.ready()]);
  }

  /**
   * Runs fn when the destination may take one more request. Resolves null, without running fn,
   * when the signal aborts first (a queued job cannot be removed from Bottleneck, so it later
   * runs as a no-op, but the caller does not wait for it).
   */
  async schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T | null> {
    const bottleneck = this.#bottleneck;
    if (!bottleneck) return this.#scheduleLocal(fn, signal);
    let priority = 5;
    for (;;) {
      if (signal?.aborted) return null;
      let started = false;
      // Aborted while it waited for its turn (spacing, the cap): never sent, and the caller knows.
      const run = (): Promise<T | null> => {
        if (signal?.aborted) return Promise.resolve(null);
        started = true;
        return fn();
      };
      const job = bottleneck.schedule<T | typeof DEFERRED | null>({ priority }, () => {
        if (signal?.aborted) return Promise.resolve(null);
        if (Date.now() < this.#pausedUntil) return Promise.resolve(DEFERRED);
        return this.#capped(this.#schedule || this.#shared ? () => this.#spaced(run) : run);
      });
      const result = signal ? await untilAborted(job, signal, () => started) : await job;
      if (result !== DEFERRED) return result;
      // Deferred jobs go ahead of fresh ones, so a pause does not reorder the queue much.
      priority = 4;
      if (!(await this.#waitForResume(signal))) return null;
    }
  }

  async #scheduleLocal<T>(fn: () => Promise<T>, signal: AbortSignal | undefined): Promise<T | null> {
    const bucket = this.#bucket;
    const concurrency = this.#concurrency;
    if (!concurrency) throw new Error('unreachable: a limiter in one process has a semaphore');
    for (;;) {
      if (signal?.aborted) return null;
      if (Date.now() < this.#pausedUntil) {
        if (!(await this.#waitForResume(signal))) return null;
        continue;
      }
      const wait = bucket?.reserve(performance.now()) ?? 0;
      if (wait > 0 && !(await pause(Math.ceil(wait), signal))) return null;
      const slot = concurrency.acquire();
      if (slot) await slot;
      if (signal?.aborted || Date.now() < this.#pausedUntil) {
        concurrency.release();
        if (signal?.aborted) return null;
        continue;
      }
      let result: T | null | typeof DEFERRED;
      try {
        // The process-wide cap is taken once the start is due, not while waiting for it: a slow
        // destination's queue must not hold the slots of everyone else.
        result = this.#schedule ? await this.#spaced(() => this.#capped(fn), signal) : await this.#capped(fn);
      } finally {
        concurrency.release();
      }
      if (result !== DEFERRED) return result;
    }
  }

  async #capped<T>(fn: () => Promise<T>): Promise<T> {
    const cap = this.#cap;
    if (!cap) return fn();
    const slot = cap.acquire();
    if (slot) await slot;
    try {
      return await fn();
    } finally {
      cap.release();
    }
  }

  /** False when the signal aborted first. */
  #waitForResume(signal: AbortSignal | undefined): Promise<boolean> {
    return pause(Math.max(this.#pausedUntil - Date.now(), 1), signal);
  }

  /**
   * Claims a start time on the local schedule (see StartSchedule), and within the arrival
   * window (and, clustered, the shared window in Redis). Jobs take their turn one at a time, so
   * concurrent jobs cannot both pass even across the await of the Redis claim; a job woken late
   * by a busy event loop (beyond the schedule's tolerance) pushes the next one back instead of
   * letting them go together.
   */
  async #spaced<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T | null | typeof DEFERRED> {
    const window = this.#window;
    const shared = this.#shared;
    const schedule = this.#schedule;
    const left = () =>
      Math.max(schedule?.waitMs(performance.now()) ?? 0, window?.waitMs(performance.now()) ?? 0);
    const previous = this.#startTurn;
    let endTurn = () => {};
    this.#startTurn = new Promise((resolve) => {
      endTurn = resolve;
    });
    let sentAt: number;
    let claimed: string | null = null;
    try {
      await previous;
      for (;;) {
        // Timers are set against the event loop's cached clock and can fire a little early.
        for (let ms = left(); ms > 0; ms = left()) if (!(await pause(Math.ceil(ms), signal))) return null;
        // A 429 may have paused the destination while this job waited its turn.
        if (Date.now() < this.#pausedUntil) return DEFERRED;
        if (!shared) break;
        const claim = await shared.claim();
        if ('id' in claim) {
          claimed = claim.id;
          break;
        }
        await sleep(claim.waitMs);
      }
      sentAt = performance.now();
      schedule?.started(sentAt);
    } finally {
      endTurn();
    }
    const slot = window?.sent(sentAt) ?? 0;
    try {
      return await fn();
    } finally {
      window?.done(slot, performance.now(), sentAt);
      // The response came back after the request arrived: its time is a safe stand-in for the
      // arrival. A failed re-stamp leaves the claim time, which the margin covers.
      if (claimed !== null) await shared?.done(claimed).catch(() => undefined);
    }
  }

  /** Holds every request to the destination back until now + ms (a 429's Retry-After). */
  pauseFor(ms: number): void {
    const now = Date.now();
    const until = boundedPauseUntil(now + ms, now);
    if (until <= this.#pausedUntil) return;
    this.#pausedUntil = until;
    // Instances' clocks are assumed synchronised (NTP); the pause is an absolute time.
    this.#bottleneck?.publish(String(until)).catch(() => undefined);
  }

  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  async stop(): Promise<void> {
    await this.#bottleneck?.stop({ dropWaitingJobs: true });
    await this.#bottleneck?.disconnect(true);
    await this.#shared?.stop();
  }
}

/**
 * Up to 200/s without burst, requests are spaced by minTime with 1 % slack; the arrival window
 * (see ArrivalWindow) turns that into a guarantee at the endpoint for each instance. Otherwise a
 * token bucket on Bottleneck's reservoir: refilled every period (one request's interval, at
 * least 100 ms so the heartbeat stays cheap), holding at most one period's tokens plus burst.
 */
export function bottleneckSettings(
  options: Pick<LimiterOptions, 'rate' | 'concurrency' | 'cluster'>,
): Bottleneck.ConstructorOptions {
  const intervalMs = 1000 / options.rate.perSecond;
  if (options.rate.burst === 0 && intervalMs >= 5)
    return {
      maxConcurrent: options.concurrency,
      // Bottleneck's Redis scripts hang on a fractional minTime: whole milliseconds there, rounded
      // down so that they never bind (3 % slack rounded up, 11 ms at 100/s, capped use at 91 %).
      // Clustered sends are spaced exactly by the schedule in the shared window instead, and the
      // window, not the spacing, bounds every second across instances.
      minTime: options.cluster ? Math.floor(intervalMs) : intervalMs * SLACK,
    };
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
