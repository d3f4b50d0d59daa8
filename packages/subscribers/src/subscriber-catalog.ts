import { setTimeout as sleep } from 'node:timers/promises';
import {
  CATALOG_TOPIC,
  dlqTopicName,
  type NameBinding,
  nameBindingKey,
  replayLogTopicName,
  retryTierOf,
  type SubscriberRecord,
  subscriberGroupId,
} from '@hookstream/contracts';
import { type KafkaConnection, KafkaReadError, RecordSender, readTopic } from '@hookstream/kafka';
import {
  type CatalogSnapshot,
  encodeNameBinding,
  encodeSubscriberRecord,
  foldRegistry,
} from './catalog-records.ts';
import { ensureOwnTopic } from './own-topic.ts';

/** The Kafka connection the catalog reads and writes through. */
export type CatalogKafka = KafkaConnection;

/** The catalog topic: one partition (tiny, ordered), compacted, never deleted by time (as the pusher creates it). */
export function registryTopicSpec(replicationFactor: number) {
  return {
    topic: CATALOG_TOPIC,
    partitions: 1,
    replicationFactor,
    config: { 'cleanup.policy': 'compact', 'retention.ms': '-1' },
  };
}

/** What a purge removed. */
export interface PurgeReport {
  readonly group: string;
  readonly topics: readonly string[];
  readonly registrations: readonly string[];
}

/** Reads and writes subscriber records in the catalog topic `hookstream.subscribers`. */
export class SubscriberCatalog {
  readonly #kafka: CatalogKafka;

  constructor(kafka: CatalogKafka) {
    this.#kafka = kafka;
  }

  /** Every subscriber's latest record; an absent topic is an empty catalog. */
  async read(): Promise<CatalogSnapshot> {
    try {
      const records = await readTopic(this.#kafka, { topic: CATALOG_TOPIC, purpose: 'catalog' });
      return foldRegistry(
        records.map((r) => ({ key: r.key, value: r.value, offset: `${r.partition}:${r.offset}` })),
      );
    } catch (err) {
      if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return foldRegistry([]);
      throw err;
    }
  }

  /** Creates the catalog topic when missing (replication: up to 3, as many as there are brokers). */
  async ensureTopic(): Promise<void> {
    await ensureOwnTopic(this.#kafka, registryTopicSpec);
  }

  /** Writes records (acks=all), keyed by name, in one batch: all of them or, on failure, an error. */
  async write(records: readonly SubscriberRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.#send(
      records.map((r) => ({ key: r.definition.name, value: encodeSubscriberRecord(r), headers: {} })),
    );
  }

  /** Tombstones: the subscriber is deleted (and, with registration keys, forgotten by the ledger-lost guard). */
  async tombstone(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#send(keys.map((key) => ({ key, value: null, headers: {} })));
  }

  async #send(
    records: { key: string; value: Buffer | null; headers: Record<string, string> }[],
  ): Promise<void> {
    await this.ensureTopic();
    const sender = new RecordSender(this.#kafka);
    await sender.connect();
    try {
      await sender.send(CATALOG_TOPIC, records);
    } finally {
      await sender.disconnect();
    }
  }

  /**
   * Deletes the subscriber's consumer group (its ledger), every tier topic of its name (listed or
   * not by a definition: after a delete there is none), its DLQ and replay-log topics, then its
   * registrations and name binding, so the name can start afresh. The group must have no member
   * (stop its pushers first): Kafka refuses to delete a live group, and so does this, before
   * any topic is touched.
   */
  async purge(name: string, registrationKeys: readonly string[]): Promise<PurgeReport> {
    const group = subscriberGroupId(name);
    const admin = this.#kafka.admin();
    await admin.connect();
    let topics: string[] = [];
    try {
      await admin.deleteGroups([group]);
      const others = new Set([dlqTopicName(name), replayLogTopicName(name)]);
      topics = (await admin.listTopics())
        .filter((t) => others.has(t) || retryTierOf(name, t) !== null)
        .sort();
      await admin.deleteTopics(topics);
    } finally {
      await admin.disconnect();
    }
    await this.tombstone([...registrationKeys, nameBindingKey(name)]);
    return { group, topics, registrations: registrationKeys };
  }

  /**
   * Waits until the subscriber's group has no member (its pushers let go after seeing its
   * tombstone), polling; false when it still has one after `timeoutMs`.
   */
  async groupEmptied(name: string, timeoutMs: number): Promise<boolean> {
    const admin = this.#kafka.admin();
    await admin.connect();
    try {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [state] = await admin.groupStates([subscriberGroupId(name)]);
        if (state === undefined || state.members === 0) return true;
        if (Date.now() > deadline) return false;
        await sleep(500);
      }
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * Deletes a subscriber's record; with a binding, in the same batch, so the name is never free
   * in between.
   */
  async remove(name: string, binding: NameBinding | null): Promise<void> {
    await this.#send([
      ...(binding === null
        ? []
        : [{ key: nameBindingKey(name), value: encodeNameBinding(binding), headers: {} }]),
      { key: name, value: null, headers: {} },
    ]);
  }
}
