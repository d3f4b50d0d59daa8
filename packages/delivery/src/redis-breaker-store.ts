import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SharedOpen } from './breaker-policy.ts';
import type { BreakerStore } from './breaker-store.ts';
import type { RedisConnections } from './redis-connections.ts';

/**
 * An open breaker is forgotten after this long without being written again: longer than the
 * longest disableAfterMs (30 days), so a destination failing that long is disabled first.
 */
const OPEN_TTL_MS = 31 * 86_400_000;

/**
 * The breaker of one destination in Redis: `hookstream:breaker:<id>` holds the open state as
 * JSON (absent: closed), `hookstream:breaker:<id>:probe` the probe slot, taken with SET NX PX so
 * that of all instances one sends a probe per interval.
 */
export class RedisBreakerStore implements BreakerStore {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #holder = randomBytes(6).toString('hex');

  readonly #connections: RedisConnections;

  /** On the process's fail-fast client: a Redis outage makes the breaker per process for a while. */
  constructor(connections: RedisConnections, clusterId: string) {
    this.#key = `hookstream:breaker:${clusterId}`;
    this.#connections = connections;
    this.#redis = connections.failFast();
  }

  ready(): Promise<void> {
    return this.#connections.connect(this.#redis);
  }

  /** Polled each second by every destination's breaker: batched with the others' (BatchedGets). */
  async read(): Promise<SharedOpen | null> {
    return parseOpen(await this.#connections.failFastGets().get(this.#key));
  }

  async open(state: SharedOpen): Promise<boolean> {
    // NX: the instance that finds it closed is the one that opened it for the fleet.
    const set = await this.#redis.set(this.#key, JSON.stringify(state), 'PX', OPEN_TTL_MS, 'NX');
    return set === 'OK';
  }

  async close(): Promise<SharedOpen | null> {
    // GETDEL (Redis 6.2): of the instances closing it at once, one gets the state it ended.
    return parseOpen(await this.#redis.getdel(this.#key));
  }

  async claimProbe(ttlMs: number): Promise<true | { heldForMs: number }> {
    const slot = `${this.#key}:probe`;
    const set = await this.#redis.set(slot, this.#holder, 'PX', ttlMs, 'NX');
    if (set === 'OK') return true;
    const left = await this.#redis.pttl(slot);
    // -2: it expired between the two calls; the caller asks again at once.
    return { heldForMs: left > 0 ? left : 1 };
  }

  async holdProbe(ttlMs: number): Promise<void> {
    // Not NX: it only ever moves the next probe later, whoever claimed the slot meanwhile.
    await this.#redis.set(`${this.#key}:probe`, this.#holder, 'PX', ttlMs);
  }

  /** Nothing to release: the connection is the process's (RedisConnections). */
  async stop(): Promise<void> {}
}

/** The shared open state as written by open(); null when absent or not ours to interpret. */
function parseOpen(raw: string | null): SharedOpen | null {
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<SharedOpen>;
    if (typeof parsed.openedAtMs !== 'number') return null;
    return {
      openedAtMs: parsed.openedAtMs,
      failingSinceMs: typeof parsed.failingSinceMs === 'number' ? parsed.failingSinceMs : null,
    };
  } catch {
    // Not ours to interpret: treated as closed, and the next open overwrites it.
    return null;
  }
}
