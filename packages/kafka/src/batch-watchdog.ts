import type { EachBatchPayload } from 'kafkajs';

const HEARTBEAT_EVERY_MS = 1000;
const CHECK_EVERY_MS = 200;

/**
 * Keeps a long batch a live group member. kafkajs heartbeats only when eachBatch asks it to, and
 * a batch may wait long (retry delays, a slow limiter, a full window), so the watchdog
 * heartbeats about once a second. A failed heartbeat means the group is rebalancing: the batch's
 * signal aborts and `failure` holds the error for kafkajs, which rejoins.
 */
export class BatchWatchdog {
  readonly controller = new AbortController();
  failure: unknown = null;
  /** The batch must begin nothing more: stopping, rebalancing, or a seek made it stale. */
  readonly shouldStop: () => boolean;
  readonly #timer: NodeJS.Timeout;

  constructor(payload: EachBatchPayload, mustStop: () => boolean) {
    const { heartbeat, isRunning, isStale } = payload;
    this.shouldStop = () => this.failure !== null || mustStop() || !isRunning() || isStale();
    let lastBeat = Date.now();
    let beating = false;
    this.#timer = setInterval(() => {
      if (this.shouldStop()) this.controller.abort();
      else if (!beating && Date.now() - lastBeat >= HEARTBEAT_EVERY_MS) {
        lastBeat = Date.now();
        beating = true;
        heartbeat()
          .catch((err: unknown) => this.fail(err))
          .finally(() => {
            beating = false;
          });
      }
    }, CHECK_EVERY_MS);
  }

  fail(err: unknown): void {
    this.failure ??= err;
    this.controller.abort();
  }

  /** Stops the timer; rethrows what stopped the batch, for kafkajs. */
  end(): void {
    clearInterval(this.#timer);
    if (this.failure !== null) throw this.failure;
  }
}
