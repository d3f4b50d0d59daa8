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
// one clock. Entries at or before now - window have left it. With a gap, sends are also spaced on
// one schedule for all instances (KEYS[2]: when the next is due, fractional ms; see StartSchedule):
// spaced only by Bottleneck, a send held back by the window let the jobs queued behind it go in a
// burst, which filled the next window early, a ~50 ms stall every second. Returns 0 with the send
// claimed, or the ms to wait: until the next send is due, or until the oldest entry leaves.
const CLAIM = `
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowUs / 1000)
local precise = nowUs / 1000
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local gapMs = tonumber(ARGV[4])
local toleranceMs = tonumber(ARGV[5])
local due = tonumber(redis.call('GET', KEYS[2])) or 0
if gapMs > 0 and precise < due - toleranceMs then
  return math.max(1, math.ceil(due - toleranceMs - precise))
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], windowMs * 2)
  if gapMs > 0 then
    -- Kept while it matters: a gap longer than the window (below 1 request in 2 s) included.
    local keep = math.ceil(math.max(windowMs, gapMs) * 2)
    redis.call('SET', KEYS[2], string.format('%.3f', math.max(due, precise) + gapMs), 'PX', keep)
  end
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + windowMs - now)
`;

// Moves a claimed entry to its response time less the margin (XX: only while it is still in the
// window). The margin only stands in for the unknown arrival of a request in flight; a finished
// request arrived before its response, so it counts for exactly one second after the response.
// Stamped at the response time itself, every finished request held the window the margin longer,
// and 100/s could use at most 100 per 1030 ms plus the latency.
const DONE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.ceil(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now - (tonumber(ARGV[2]) - 1000), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 0
`;

/** Defines the window's scripts on a client (once: RedisConnections makes it). */
export function defineWindowCommands(redis: Redis): Redis & WindowCommands {
  redis.defineCommand('hookstreamWindowClaim', { numberOfKeys: 2, lua: CLAIM });
  redis.defineCommand('hookstreamWindowDone', { numberOfKeys: 1, lua: DONE });
  return redis as Redis & WindowCommands;
}

export interface WindowCommands {
  hookstreamWindowClaim(
    key: string,
    dueKey: string,
    windowMs: number,
    limit: number,
    member: string,
    gapMs: number,
    toleranceMs: number,
  ): Promise<number>;
  hookstreamWindowDone(key: string, member: string, windowMs: number): Promise<number>;
}

/**
 * A sliding window of sends shared through Redis by every instance of one destination: at most
 * `limit` sends claimed in any window, optionally spaced on one schedule, checked and claimed
 * atomically by one script.
 */
export class SharedWindow {
  readonly #redis: Redis & WindowCommands;
  readonly #connections: RedisConnections;
  readonly #key: string;
  readonly #settings: SharedWindowSettings;
  readonly #spacing: SharedSpacing;
  readonly #instance = randomBytes(6).toString('hex');
  #sequence = 0;

  constructor(
    connections: RedisConnections,
    clusterId: string,
    settings: SharedWindowSettings,
    spacing: SharedSpacing = { gapMs: 0, toleranceMs: 0 },
  ) {
    this.#settings = settings;
    this.#spacing = spacing;
    this.#key = `hookstream:window:${clusterId}`;
    this.#connections = connections;
    this.#redis = connections.windows();
  }

  ready(): Promise<void> {
    return this.#connections.connect(this.#redis);
  }

  /** Claims a send now: returns its id, or the ms to wait before trying again. */
  async claim(): Promise<{ readonly id: string } | { readonly waitMs: number }> {
    const id = `${this.#instance}:${this.#sequence++}`;
    const waitMs = Number(
      await this.#redis.hookstreamWindowClaim(
        this.#key,
        `${this.#key}:due`,
        this.#settings.windowMs,
        this.#settings.limit,
        id,
        this.#spacing.gapMs,
        this.#spacing.toleranceMs,
      ),
    );
    return waitMs === 0 ? { id } : { waitMs };
  }

  /** Re-stamps a claimed send by its response time, an upper bound on its arrival. */
  async done(id: string): Promise<void> {
    await this.#redis.hookstreamWindowDone(this.#key, id, this.#settings.windowMs);
  }

  /** Nothing to release: the connection is the process's (RedisConnections). */
  async stop(): Promise<void> {}
}
