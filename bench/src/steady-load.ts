import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchSubscriber } from './fleet-subscribers.ts';
import type { KafkaEventSink } from './kafka-event-sink.ts';
import { epochNow } from './open-loop.ts';

/** One event the steady load published: when it was due, and whose it is. */
export interface Published {
  readonly id: string;
  /** Epoch ms it was due: where its latency starts. */
  readonly at: number;
  readonly subscriber: BenchSubscriber;
}

/** Sends in flight at most; a broker that stalls makes the load report errors, not pile up. */
const MAX_IN_FLIGHT = 5000;

/**
 * An open-loop load that runs until stopped: events round robin over `subscribers` at `perSecond`
 * in all, each sent at its due time whether or not earlier ones were answered. It runs through
 * every disruption of a multi-instance run, so a stall shows as latency, not as a lower rate.
 */
export class SteadyLoad {
  readonly published: Published[] = [];
  errors = 0;
  readonly #sink: KafkaEventSink;
  readonly #subscribers: readonly BenchSubscriber[];
  readonly #perSecond: number;
  readonly #label: string;
  #stopped = false;
  #inFlight = 0;
  #running: Promise<void> = Promise.resolve();

  constructor(
    sink: KafkaEventSink,
    subscribers: readonly BenchSubscriber[],
    perSecond: number,
    label: string,
  ) {
    if (subscribers.length === 0) throw new Error('a steady load needs at least one subscriber');
    this.#sink = sink;
    this.#subscribers = subscribers;
    this.#perSecond = perSecond;
    this.#label = label;
  }

  start(): void {
    this.#running = this.#run();
  }

  /** Stops publishing and waits for the sends in flight; returns how many were accepted. */
  async stop(): Promise<number> {
    this.#stopped = true;
    await this.#running;
    while (this.#inFlight > 0) await sleep(10);
    return this.published.length;
  }

  async #run(): Promise<void> {
    const start = epochNow() + 5;
    for (let n = 0; !this.#stopped; n++) {
      const at = start + (n * 1000) / this.#perSecond;
      const wait = at - epochNow();
      if (wait > 1) await sleep(wait);
      if (this.#inFlight >= MAX_IN_FLIGHT) {
        this.errors++;
        continue;
      }
      const subscriber = this.#subscribers[n % this.#subscribers.length] as BenchSubscriber;
      const id = `${this.#label}-${n}`;
      this.#inFlight++;
      void this.#sink
        .send({
          id,
          type: subscriber.eventType,
          key: `k${n % 256}`,
          n,
          time: new Date().toISOString(),
          ...(subscriber.tenant === undefined ? {} : { tenant: subscriber.tenant }),
        })
        .then(
          (ok) => (ok ? this.published.push({ id, at, subscriber }) : this.errors++),
          () => this.errors++,
        )
        .finally(() => this.#inFlight--);
    }
  }
}
