import { setTimeout as sleep } from 'node:timers/promises';
import { type CapShare, FairShareCap, Semaphore } from '@hookstream/concurrency';
import type { RateSettings } from '@hookstream/contracts';
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
   * clusterId (SharedWindow), so the limit holds across a subscriber's instances. `leaseMs`: how
   * long a send holds a slot of the shared concurrency should its instance die before ending it
   * (longer than its request's timeout; default a minute, bounded to 1 s..10 min).
   */
  readonly cluster?: {
    readonly redis: RedisConnections;
    readonly clusterId: string;
    readonly leaseMs?: number;
  };
}

const DEFAULT_LEASE_MS = 60_000;
const MIN_LEASE_MS = 1000;
const MAX_LEASE_MS = 600_000;

/** How long a claim waits first, and at most, while the shared concurrency is taken on another instance. */
const BUSY_FIRST_WAIT_MS = 5;
const BUSY_MAX_WAIT_MS = 100;

/**
 * A process-wide bound on requests in flight, whatever the destinations' own limits, shared
 * fairly: when it is full, a freed slot goes to the subscriber holding the fewest.
 */
export type InFlightCap = FairShareCap;

export function createInFlightCap(maxInFlight: number): InFlightCap {
  return new FairShareCap(maxInFlight);
}

/**
 * How a destination's limits are kept. Up to 200/s without burst, each request starts on a local
 * schedule (StartSchedule) within an arrival window (`spaced`); faster, or with a burst, a token
 * bucket (`bucket`); either way a semaphore bounds concurrency. `clustered`: instances sharing
 * Redis also claim every send in a window shared through Redis (SharedWindow), which spaces all
 * of them on one schedule, bounds what they send together in any second and in flight, and
 * carries 429 pauses. Bottleneck did this once (and in one process before that); its per-job
 * bookkeeping (events, async steps, a timer per job) cost more than the delivery around it, and
 * clustered it took five Redis scripts a send where SharedWindow takes two.
 */
export function limiterMode(
  options: Pick<LimiterOptions, 'rate' | 'cluster'>,
): 'clustered' | 'spaced' | 'bucket' {
  if (options.cluster) return 'clustered';
  return spacingGapMs(options.rate) > 0 ? 'spaced' : 'bucket';
}

/**
 * The gap between starts when requests are spaced: the rate's interval with 1 % slack, up to
 * 200/s without burst; 0 otherwise (a token bucket instead: in the process, or one in Redis).
 */
export function spacingGapMs(rate: RateSettings): number {
  const intervalMs = 1000 / rate.perSecond;
  return rate.burst === 0 && intervalMs >= 5 ? intervalMs * SLACK : 0;
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
 * Rate and concurrency for one destination. A 429's Retry-After pauses the whole destination:
 * jobs that reach the front while it is paused give their slot back without sending, wait, and
 * queue again, so a resumed destination still sees requests spaced by the rate.
 */
export class DestinationLimiter {
  readonly #bucket: TokenBucket | null = null;
  readonly #concurrency: Semaphore;
  readonly #cap: CapShare | undefined;
  #pausedUntil = 0;
  // A timer set for a planned start can run one job late and the next on time, bunching them:
  // a schedule of actual starts keeps the spacing at the wire.
  readonly #schedule: StartSchedule | null = null;
  readonly #window: ArrivalWindow | null = null;
  // Clustered only: each instance's arrival window sees its own sends alone, so two instances
  // spaced apart at dispatch can still land limit+1 requests in one second at the endpoint. The
  // shared window bounds the sends of all instances together, their concurrency and pauses.
  readonly #shared: SharedWindow | null = null;
  // One job at a time waits for its start, so the check and the claim of a start stay together
  // even when the claim is a round trip to Redis.
  #startTurn: Promise<void> = Promise.resolve();

  constructor(options: LimiterOptions) {
    this.#cap = options.inFlightCap;
    this.#concurrency = new Semaphore(options.concurrency);
    const bucket = { perSecond: options.rate.perSecond, capacity: Math.max(1, options.rate.burst) };
    if (limiterMode(options) === 'bucket') {
      this.#bucket = new TokenBucket(bucket.perSecond, bucket.capacity, performance.now());
      return;
    }
    const gapMs = spacingGapMs(options.rate);
    const spacing = { gapMs, toleranceMs: Math.min(SPACING_TOLERANCE_MS, gapMs) };
    if (gapMs > 0) this.#schedule = new StartSchedule(spacing.gapMs, spacing.toleranceMs);
    this.#window = new ArrivalWindow(Math.max(1, Math.floor(options.rate.perSecond + options.rate.burst)));
    const cluster = options.cluster;
    if (!cluster) return;
    const leaseMs = Math.min(Math.max(cluster.leaseMs ?? DEFAULT_LEASE_MS, MIN_LEASE_MS), MAX_LEASE_MS);
    this.#shared = new SharedWindow(
      cluster.redis,
      cluster.clusterId,
      sharedWindowSettings(options.rate),
      spacing,
      {
        concurrency: options.concurrency,
        leaseMs: Math.round(leaseMs),
        // What TokenBucket keeps in one process, for all instances at once.
        bucket: gapMs > 0 ? null : bucket,
      },
    );
  }

  /** Resolves once the datastore (Redis, when clustered) is connected. */
  async ready(): Promise<void> {
    await this.#shared?.ready();
  }

  /**
   * Runs fn when the destination may take one more request. Resolves null, without running fn,
   * when the signal aborts before fn started.
   */
  async schedule<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T | null> {
    const bucket = this.#bucket;
    const concurrency = this.#concurrency;
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
        result = this.#window ? await this.#spaced(() => this.#capped(fn), signal) : await this.#capped(fn);
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
      let busyWaitMs = BUSY_FIRST_WAIT_MS;
      for (;;) {
        // Timers are set against the event loop's cached clock and can fire a little early.
        for (let ms = left(); ms > 0; ms = left()) if (!(await pause(Math.ceil(ms), signal))) return null;
        // A 429 may have paused the destination while this job waited its turn.
        if (Date.now() < this.#pausedUntil) return DEFERRED;
        if (!shared) break;
        const claim = await shared.claim();
        if (claim.kind === 'claimed') {
          claimed = claim.id;
          break;
        }
        if (claim.kind === 'paused') {
          this.#pauseHere(claim.ms);
          return DEFERRED;
        }
        // Taken on another instance: nothing here says when it frees, so ask again, less often.
        const ms = claim.kind === 'wait' ? claim.ms : busyWaitMs;
        if (claim.kind === 'busy') busyWaitMs = Math.min(busyWaitMs * 2, BUSY_MAX_WAIT_MS);
        if (!(await pause(ms, signal))) return null;
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
      // arrival. A failed re-stamp leaves the claim time, which the margin covers, and the slot
      // of the concurrency held until its lease ends.
      if (claimed !== null) await shared?.done(claimed).catch(() => undefined);
    }
  }

  /** Holds every request to the destination back until now + ms (a 429's Retry-After), on every instance. */
  pauseFor(ms: number): void {
    const until = this.#pauseHere(ms);
    if (until !== null) this.#shared?.pause(until - Date.now()).catch(() => undefined);
  }

  /** Pauses this instance: the bounded end when later than the pause in force, else null. */
  #pauseHere(ms: number): number | null {
    const now = Date.now();
    const until = boundedPauseUntil(now + ms, now);
    if (until <= this.#pausedUntil) return null;
    this.#pausedUntil = until;
    return until;
  }

  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  async stop(): Promise<void> {
    await this.#shared?.stop();
  }
}
