import type { Redis } from 'ioredis';

/** How long a GET waits for others to share its MGET. */
export const BATCH_WINDOW_MS = 50;
/** Keys of one MGET at most: a larger batch is sent at once and the next one begins. */
export const BATCH_MAX_KEYS = 256;

interface Waiter {
  readonly resolve: (value: string | null) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * GETs gathered for a moment and sent as one MGET. Every destination's breaker reads its shared
 * state each second: a process of a thousand subscribers sent a thousand GETs a second at rest,
 * each a write and a read on the socket. A read waits BATCH_WINDOW_MS at most for company.
 */
export class BatchedGets {
  readonly #redis: Redis;
  readonly #windowMs: number;
  #pending = new Map<string, Waiter[]>();
  #timer: NodeJS.Timeout | null = null;

  constructor(redis: Redis, windowMs = BATCH_WINDOW_MS) {
    this.#redis = redis;
    this.#windowMs = windowMs;
  }

  get(key: string): Promise<string | null> {
    return new Promise((resolve, reject) => {
      const waiters = this.#pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.#pending.set(key, [{ resolve, reject }]);
      if (this.#pending.size >= BATCH_MAX_KEYS) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.#windowMs);
    });
  }

  #flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#pending;
    this.#pending = new Map();
    const keys = [...batch.keys()];
    this.#redis.mget(keys).then(
      (values) =>
        keys.forEach((key, i) => {
          for (const w of batch.get(key) ?? []) w.resolve(values[i] ?? null);
        }),
      (error: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
      },
    );
  }
}
