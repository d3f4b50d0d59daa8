import { randomBytes } from 'node:crypto';
import type { RateSettings } from '@hookstream/contracts';
import { Redis } from 'ioredis';

/**
 * How much longer than one second the shared window counts. Instances claim a send at Redis's
 * clock, but a request reaches the endpoint a little after its claim (the reply, the event loop,
 * the HTTP write). A finished request is re-stamped with its response time, which is after its
 * arrival, so only a request still in flight when the one `limit` places later is claimed relies
 * on the margin: its arrival may lag its claim by up to the margin without squeezing limit+1
 * arrivals into one second. Utilisation is limit per (1000 + margin) ms: at 5/s, 5 per 1030 ms is
 * 4.85/s = 97.1 %, which leaves about 2 % of the 95 % floor for timer lateness and the response
 * latency that re-stamping adds once per window (a 50 ms margin would leave 0.2 %: 95.2 %).
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

/** The long-run rate a window of these settings allows, per second. */
export function sharedWindowRate(settings: SharedWindowSettings): number {
  return (settings.limit * 1000) / settings.windowMs;
}

// Scores are Redis TIME in ms, never a process's clock, so every instance measures the window on
// one clock. Entries at or before now - window have left it. Returns 0 with the send claimed, or
// the ms until the oldest entry leaves the window.
const CLAIM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - windowMs)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], windowMs * 2)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + windowMs - now)
`;

// Moves a claimed entry to its response time (XX: only while it is still in the window).
const DONE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.ceil(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 0
`;

interface WindowCommands {
  hookstreamWindowClaim(key: string, windowMs: number, limit: number, member: string): Promise<number>;
  hookstreamWindowDone(key: string, member: string, windowMs: number): Promise<number>;
}

/**
 * A sliding window of sends shared through Redis by every instance of one destination: at most
 * `limit` sends claimed in any window, checked and claimed atomically by one script.
 */
export class SharedWindow {
  readonly #redis: Redis & WindowCommands;
  readonly #key: string;
  readonly #settings: SharedWindowSettings;
  readonly #instance = randomBytes(6).toString('hex');
  #sequence = 0;

  constructor(redisUrl: string, clusterId: string, settings: SharedWindowSettings) {
    this.#settings = settings;
    this.#key = `hookstream:window:${clusterId}`;
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
    redis.defineCommand('hookstreamWindowClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('hookstreamWindowDone', { numberOfKeys: 1, lua: DONE });
    this.#redis = redis as Redis & WindowCommands;
  }

  async ready(): Promise<void> {
    if (this.#redis.status === 'wait') await this.#redis.connect();
  }

  /** Claims a send now: returns its id, or the ms to wait before trying again. */
  async claim(): Promise<{ readonly id: string } | { readonly waitMs: number }> {
    const id = `${this.#instance}:${this.#sequence++}`;
    const waitMs = Number(
      await this.#redis.hookstreamWindowClaim(this.#key, this.#settings.windowMs, this.#settings.limit, id),
    );
    return waitMs === 0 ? { id } : { waitMs };
  }

  /** Re-stamps a claimed send with its response time, an upper bound on its arrival. */
  async done(id: string): Promise<void> {
    await this.#redis.hookstreamWindowDone(this.#key, id, this.#settings.windowMs);
  }

  async stop(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
