import type { Redis } from 'ioredis';
import { BatchedGets } from './batched-gets.ts';
import { redisClass } from './redis-client.ts';
import { defineWindowCommands, type WindowCommands } from './shared-window.ts';

/**
 * The Redis connections one process shares among every destination's limits and breaker: a
 * client that waits out reconnects (the shared windows: limits and 429 pauses) and one that fails
 * fast (the breakers), each made when first asked. One connection of each per destination (with
 * Bottleneck's pair, then) made four per subscriber per instance: three instances of 1,000
 * subscribers overran Redis's 10,000 clients, and subscribers failed to start.
 */
export class RedisConnections {
  readonly url: string;
  /** What CLIENT LIST shows for each of them, so an operator can tell the processes apart. */
  readonly name: string;
  #windows: (Redis & WindowCommands) | null = null;
  #failFast: Redis | null = null;
  #failFastGets: BatchedGets | null = null;
  readonly #connecting = new Map<Redis, Promise<void>>();

  constructor(url: string, name = 'hookstream') {
    this.url = url;
    this.name = name;
  }

  /** Commands that wait out a reconnect: a send waits for its claim rather than go unlimited. */
  windows(): Redis & WindowCommands {
    if (this.#windows === null)
      this.#windows = defineWindowCommands(
        new (redisClass())(this.url, {
          lazyConnect: true,
          maxRetriesPerRequest: null,
          connectionName: this.name,
        }),
      );
    return this.#windows;
  }

  /** One try per command: a Redis outage makes a breaker per process rather than hold deliveries. */
  failFast(): Redis {
    this.#failFast ??= new (redisClass())(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectionName: this.name,
    });
    return this.#failFast;
  }

  /** GETs on the fail-fast client, many keys to one MGET: the breakers' polls of their state. */
  failFastGets(): BatchedGets {
    this.#failFastGets ??= new BatchedGets(this.failFast());
    return this.#failFastGets;
  }

  /** Connects a client once, however many destinations ask at the same time. */
  connect(client: Redis): Promise<void> {
    let connecting = this.#connecting.get(client);
    if (connecting === undefined) {
      connecting = client.status === 'wait' ? client.connect() : Promise.resolve();
      this.#connecting.set(client, connecting);
    }
    return connecting;
  }

  async close(): Promise<void> {
    const quit = (c: Redis | null) =>
      c === null || c.status === 'wait'
        ? c?.disconnect()
        : c.quit().then(
            () => undefined,
            () => c.disconnect(),
          );
    await Promise.all([quit(this.#windows), quit(this.#failFast)]);
  }
}
