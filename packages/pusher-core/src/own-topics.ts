import type { LogFn } from '@hookstream/contracts';

import type { PusherResources } from './pusher-resources.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

/**
 * A subscriber's retry tiers and DLQ, created at its first failure rather than when it starts:
 * a fleet of a thousand subscribers that mostly succeed then holds a thousand groups on the
 * shared events topic, not six thousand more topics. Creation happens once; `onCreated` lets the
 * runner rejoin its group with the tiers subscribed.
 */
export class OwnTopics {
  readonly #topology: SubscriberTopology;
  readonly #resources: PusherResources;
  readonly #partitions: number;
  readonly #log: LogFn;
  readonly #onCreated: () => void;
  #ensured: Promise<void> | null = null;
  #exist = false;

  constructor(options: {
    topology: SubscriberTopology;
    resources: PusherResources;
    /** Partitions of each tier and of the DLQ. */
    partitions: number;
    log: LogFn;
    onCreated: () => void;
  }) {
    this.#topology = options.topology;
    this.#resources = options.resources;
    this.#partitions = options.partitions;
    this.#log = options.log;
    this.#onCreated = options.onCreated;
  }

  /** Whether every tier and the DLQ exist (asked once at start; after that, known). */
  async exist(): Promise<boolean> {
    if (this.#exist) return true;
    const { tierTopics, dlqTopic } = this.#topology;
    this.#exist = await this.#resources.topicsExist([...tierTopics, dlqTopic]);
    return this.#exist;
  }

  /** Creates what is missing, once; a failure is retried by the next call. */
  ensure = (): Promise<void> => {
    // Callers during and after the creation share one promise, so writes leave in call order.
    if (this.#ensured !== null) return this.#ensured;
    if (this.#exist) return Promise.resolve();
    this.#ensured = this.#create().catch((err: unknown) => {
      this.#ensured = null;
      throw err;
    });
    return this.#ensured;
  };

  async #create(): Promise<void> {
    const specs = this.#topology.ownTopics(this.#partitions, this.#resources.replicationFactor);
    const created = await this.#resources.ensureTopics(specs);
    this.#exist = true;
    if (created.length > 0) this.#log('info', 'created subscriber topics', { topics: created });
    this.#onCreated();
  }
}
