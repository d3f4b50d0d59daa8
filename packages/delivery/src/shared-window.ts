import { randomBytes } from 'node:crypto';
import type { RateSettings } from '@hookstream/contracts';
import type { Redis } from 'ioredis';
import type { RedisConnections } from './redis-connections.ts';

/**
 * How much longer than one second the shared window counts. Instances claim a send at Redis's
 * clock, but a request reaches the endpoint a little after its claim (the reply, the event loop,
 * the HTTP write). A finished request is re-stamped with its response time less the margin (its
 * response came after its arrival, so it still counts for a full second after arriving), so only a
 * request still in flight when the one `limit` places later is claimed relies on the margin: its
 * arrival may lag its claim by up to the margin without squeezing limit+1 arrivals into one
 * second. Utilisation is at least limit per (1000 + margin) ms (every request still in flight a
 * second later): at 5/s, 5 per 1030 ms is 4.85/s = 97.1 %; with responses in time it is limit per
 * (1000 + latency) ms.
 */
export const SHARED_WINDOW_MARGIN_MS = 30;

export interface SharedWindowSettings {
  /** Requests allowed in any window: the rate plus the burst, as the arrival window allows. */
  readonly limit: number;
  readonly windowMs: number;
}

export function sharedWindowSettings(rate: RateSettings): SharedWindowSettings {
  return {
    limit: Math.max(1, Math.floor(rate.perSecond + rate.burst)),
    windowMs: 1000 + SHARED_WINDOW_MARGIN_MS,
  };
}

/** Even spacing of the claims of all instances: one every gapMs, up to toleranceMs early. */
export interface SharedSpacing {
  readonly gapMs: number;
  readonly toleranceMs: number;
}

/** The long-run rate a window of these settings allows, per second. */
export function sharedWindowRate(settings: SharedWindowSettings): number {
  return (settings.limit * 1000) / settings.windowMs;
}

// Scores are Redis TIME in ms, never a process's clock, so every instance measures the window on
// one clock. In order: a 429 pause of any instance (KEYS[4], expiring with it); the sends in
// flight across instances (KEYS[3], scored by when their lease ends, so those of an instance
// that died leave at its end) against the concurrency; with a gap, one schedule for all
// instances (KEYS[2]: when the next is due, fractional ms; see StartSchedule), since a send held
// back by the window alone let the ones behind it go in a burst that filled the next window
// early; without a gap (a burst, or over 200/s) one token bucket for all instances instead
// (KEYS[5]), as TokenBucket keeps it in one process; then the window itself. Entries at or
// before now - window have left it.
// Returns {0} with the send claimed (in flight and in the window), {1, ms}: wait until the next
// send is due or the oldest entry leaves, {2}: the concurrency is taken, {3, ms}: paused.
const CLAIM = `
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowUs / 1000)
local precise = nowUs / 1000
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local gapMs = tonumber(ARGV[4])
local toleranceMs = tonumber(ARGV[5])
local concurrency = tonumber(ARGV[6])
local leaseMs = tonumber(ARGV[7])
local paused = redis.call('PTTL', KEYS[4])
if paused > 0 then
  return {3, paused}
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= concurrency then
  return {2, 0}
end
local due = tonumber(redis.call('GET', KEYS[2])) or 0
if gapMs > 0 and precise < due - toleranceMs then
  return {1, math.max(1, math.ceil(due - toleranceMs - precise))}
end
local bucketRate = tonumber(ARGV[8])
local capacity = tonumber(ARGV[9])
local tokens = capacity
if bucketRate > 0 then
  local bucket = redis.call('HMGET', KEYS[5], 'tokens', 'at')
  if bucket[1] then
    tokens = math.min(capacity, tonumber(bucket[1]) + (precise - tonumber(bucket[2])) * bucketRate / 1000)
  end
  if tokens < 1 then
    return {1, math.max(1, math.ceil((1 - tokens) * 1000 / bucketRate))}
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
if redis.call('ZCARD', KEYS[1]) < limit then
  if bucketRate > 0 then
    redis.call('HSET', KEYS[5], 'tokens', string.format('%.6f', tokens - 1), 'at', string.format('%.3f', precise))
    -- Gone once it would be full again: an absent bucket is a full one.
    redis.call('PEXPIRE', KEYS[5], math.ceil(capacity * 1000 / bucketRate) + 1000)
  end
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], windowMs * 2)
  redis.call('ZADD', KEYS[3], now + leaseMs, ARGV[3])
  redis.call('PEXPIRE', KEYS[3], leaseMs)
  if gapMs > 0 then
    -- Kept while it matters: a gap longer than the window (below 1 request in 2 s) included.
    local keep = math.ceil(math.max(windowMs, gapMs) * 2)
    redis.call('SET', KEYS[2], string.format('%.3f', math.max(due, precise) + gapMs), 'PX', keep)
  end
  return {0, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {1, math.max(1, tonumber(oldest[2]) + windowMs - now)}
`;

// Moves a claimed entry to its response time less the margin (XX: only while it is still in the
// window), and ends its lease on the concurrency. The margin only stands in for the unknown
// arrival of a request in flight; a finished request arrived before its response, so it counts
// for exactly one second after the response. Stamped at the response time itself, every finished
// request held the window the margin longer, and 100/s could use at most 100 per 1030 ms plus
// the latency.
const DONE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.ceil(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now - (tonumber(ARGV[2]) - 1000), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
redis.call('ZREM', KEYS[2], ARGV[1])
return 0
`;

// Pauses every instance's sends for ARGV[1] ms, unless a longer pause is already in force.
const PAUSE = `
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 0
`;

/** Defines the window's scripts on a client (once: RedisConnections makes it). */
export function defineWindowCommands(redis: Redis): Redis & WindowCommands {
  redis.defineCommand('hookstreamWindowClaim', { numberOfKeys: 5, lua: CLAIM });
  redis.defineCommand('hookstreamWindowDone', { numberOfKeys: 2, lua: DONE });
  redis.defineCommand('hookstreamWindowPause', { numberOfKeys: 1, lua: PAUSE });
  return redis as Redis & WindowCommands;
}

export interface WindowCommands {
  hookstreamWindowClaim(
    key: string,
    dueKey: string,
    inFlightKey: string,
    pauseKey: string,
    bucketKey: string,
    windowMs: number,
    limit: number,
    member: string,
    gapMs: number,
    toleranceMs: number,
    concurrency: number,
    leaseMs: number,
    bucketPerSecond: number,
    bucketCapacity: number,
  ): Promise<[number, number]>;
  hookstreamWindowDone(key: string, inFlightKey: string, member: string, windowMs: number): Promise<number>;
  hookstreamWindowPause(pauseKey: string, ms: number): Promise<number>;
}

/** What every instance of one destination shares besides the window. */
export interface SharedLimits {
  /** Sends in flight across all instances at most. */
  readonly concurrency: number;
  /**
   * How long a claimed send holds its slot of the concurrency at most: its request's timeout and
   * more, so only the sends of an instance that died before ending them are let go this way.
   */
  readonly leaseMs: number;
  /**
   * Without spacing (a burst, or over 200/s): the token bucket all instances draw from, so the
   * long-run rate holds (the window alone would allow rate + burst every second). Null: spaced.
   */
  readonly bucket: { readonly perSecond: number; readonly capacity: number } | null;
}

/**
 * What a claim says: `claimed` (the send may go; end it with done), `wait` (the next send is due,
 * or the window has room, in `ms`), `busy` (the concurrency is taken on some instance: try again
 * shortly) or `paused` (a 429 paused the destination for `ms` more).
 */
export type SharedClaim =
  | { readonly kind: 'claimed'; readonly id: string }
  | { readonly kind: 'wait' | 'paused'; readonly ms: number }
  | { readonly kind: 'busy' };

/**
 * A destination's limits shared through Redis by all its instances: at most `limit` sends
 * claimed in any window, optionally spaced on one schedule, at most `concurrency` in flight, and
 * a 429's pause; checked and claimed atomically by one script, ended by another. Two round trips
 * a send: Bottleneck's clustering took five, and its per-job bookkeeping more CPU than the send.
 */
export class SharedWindow {
  readonly #redis: Redis & WindowCommands;
  readonly #connections: RedisConnections;
  readonly #key: string;
  readonly #settings: SharedWindowSettings;
  readonly #spacing: SharedSpacing;
  readonly #limits: SharedLimits;
  readonly #instance = randomBytes(6).toString('hex');
  #sequence = 0;

  constructor(
    connections: RedisConnections,
    clusterId: string,
    settings: SharedWindowSettings,
    spacing: SharedSpacing,
    limits: SharedLimits,
  ) {
    this.#settings = settings;
    this.#spacing = spacing;
    this.#limits = limits;
    this.#key = `hookstream:window:${clusterId}`;
    this.#connections = connections;
    this.#redis = connections.windows();
  }

  ready(): Promise<void> {
    return this.#connections.connect(this.#redis);
  }

  /** Claims a send now, or says why not. */
  async claim(): Promise<SharedClaim> {
    const id = `${this.#instance}:${this.#sequence++}`;
    const [code, ms] = await this.#redis.hookstreamWindowClaim(
      this.#key,
      `${this.#key}:due`,
      `${this.#key}:inflight`,
      `${this.#key}:paused`,
      `${this.#key}:bucket`,
      this.#settings.windowMs,
      this.#settings.limit,
      id,
      this.#spacing.gapMs,
      this.#spacing.toleranceMs,
      this.#limits.concurrency,
      this.#limits.leaseMs,
      this.#limits.bucket?.perSecond ?? 0,
      this.#limits.bucket?.capacity ?? 1,
    );
    if (code === 0) return { kind: 'claimed', id };
    if (code === 2) return { kind: 'busy' };
    return { kind: code === 3 ? 'paused' : 'wait', ms: Number(ms) };
  }

  /** Ends a claimed send: re-stamped by its response time (an upper bound on its arrival), its slot freed. */
  async done(id: string): Promise<void> {
    await this.#redis.hookstreamWindowDone(this.#key, `${this.#key}:inflight`, id, this.#settings.windowMs);
  }

  /** Pauses the sends of every instance for `ms` (a 429's Retry-After), unless a longer pause holds. */
  async pause(ms: number): Promise<void> {
    await this.#redis.hookstreamWindowPause(`${this.#key}:paused`, Math.max(1, Math.round(ms)));
  }

  /** Nothing to release: the connection is the process's (RedisConnections). */
  async stop(): Promise<void> {}
}
