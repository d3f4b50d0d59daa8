import { type LogFn, retryTierOf } from '@hookstream/contracts';

import type { PusherResources } from './pusher-resources.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

/**
 * A subscriber's retry tiers and DLQ, made when the subscriber starts, before its group's first
 * join: the group reads its tiers from that join on, so a first failure writes one record and no
 * rejoin follows. The writes into them still wait for `ensure`, which is settled from the start on.
 *
 * Which tiers are read does not follow the definition alone: the definition's tiers (a grown
 * schedule's new one made at this start), and a tier the definition no longer lists is read while it holds records above the ledger (a shrunk schedule), so no record
 * waits in a tier nobody reads.
 */
export class OwnTopics {
  readonly #topology: SubscriberTopology;
  readonly #resources: PusherResources;
  readonly #partitions: number;
  readonly #log: LogFn;
  #ensured: Promise<void> | null = null;
  #complete = false;
  #dlqExists = false;
  #existing: readonly string[] = [];
  /** Made by this start's ensure(), with the definition's settings: nothing to align. */
  #created: ReadonlySet<string> = new Set();

  constructor(options: {
    topology: SubscriberTopology;
    resources: PusherResources;
    /** Partitions of each tier and of the DLQ. */
    partitions: number;
    log: LogFn;
  }) {
    this.#topology = options.topology;
    this.#resources = options.resources;
    this.#partitions = options.partitions;
    this.#log = options.log;
  }

  get dlqExists(): boolean {
    return this.#dlqExists;
  }

  /**
   * The tier topics to read, in tier order: the definition's that exist, and any other tier of
   * the subscriber still holding records above its ledger. Looks again each call.
   */
  async tiersToRead(): Promise<string[]> {
    const { tierTopics, dlqTopic, name, groupId, definition } = this.#topology;
    const names = new Set(await this.#resources.topicsNamed(`${groupId}.`, [...tierTopics, dlqTopic]));
    this.#dlqExists = names.has(dlqTopic);
    this.#complete = this.#dlqExists && tierTopics.every((t) => names.has(t));
    this.#existing = [...names];
    const listed = tierTopics.filter((t) => names.has(t));
    const beyond = [...names].filter((t) => (retryTierOf(name, t) ?? 0) > definition.retry.delaysMs.length);
    const unsettled =
      beyond.length === 0
        ? []
        : (await this.#resources.admin.groupLag(groupId, beyond))
            .filter((l) => l.lag > 0)
            .map((l) => l.topic);
    return [...listed, ...unsettled].sort(
      (a, b) => (retryTierOf(name, a) ?? 0) - (retryTierOf(name, b) ?? 0),
    );
  }

  /**
   * Brings the retention of the existing tiers and DLQ to what the definition gives new ones
   * (its delays and age ceiling set it), so a changed definition changes how long they keep
   * records. Returns the topics it changed.
   */
  async alignRetention(): Promise<string[]> {
    const existing = new Set(this.#existing);
    const specs = this.#topology
      .ownTopics(this.#partitions, this.#resources.replicationFactor)
      .filter((spec) => existing.has(spec.topic) && !this.#created.has(spec.topic));
    const configs = await this.#resources.admin.existingTopicConfigs(specs.map((s) => s.topic));
    const changed: string[] = [];
    for (const spec of specs) {
      const wanted = spec.config?.['retention.ms'];
      if (wanted === undefined) continue;
      const current = configs.get(spec.topic)?.['retention.ms'];
      if (current === undefined || current === wanted) continue;
      await this.#resources.admin.alterTopicConfig(spec.topic, { 'retention.ms': wanted });
      this.#log('info', 'retention follows the definition', {
        topic: spec.topic,
        fromMs: Number(current),
        toMs: Number(wanted),
      });
      changed.push(spec.topic);
    }
    return changed;
  }

  /** Creates what is missing, once; a failure is retried by the next call. */
  ensure = (): Promise<void> => {
    // Callers during and after the creation share one promise, so writes leave in call order.
    if (this.#ensured !== null) return this.#ensured;
    if (this.#complete) return Promise.resolve();
    this.#ensured = this.#create().catch((err: unknown) => {
      this.#ensured = null;
      throw err;
    });
    return this.#ensured;
  };

  async #create(): Promise<void> {
    const specs = this.#topology.ownTopics(this.#partitions, this.#resources.replicationFactor);
    const created = await this.#resources.ensureTopics(specs);
    this.#created = new Set(created);
    this.#complete = true;
    this.#dlqExists = true;
    if (created.length > 0) this.#log('info', 'created subscriber topics', { topics: created });
  }
}
