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
import {
  type ConsumedRecord,
  type KafkaConnection,
  KafkaReadError,
  type RecordPosition,
  type RecordSender,
  readTopic,
} from '@hookstream/kafka';
import {
  type CatalogSnapshot,
  encodeNameBinding,
  encodeSubscriberRecord,
  foldRegistry,
  type RawRegistryRecord,
} from './catalog-records.ts';
import type { ExpectedRevision } from './catalog-revisions.ts';
import type { CatalogWatcher } from './catalog-watcher.ts';
import { type CatalogWrite, writeIfRevision } from './conditional-write.ts';
import { CatalogError } from './errors.ts';
import { boundTopicSetting, ensureOwnTopic } from './own-topic.ts';
import { OwnTopicWriter } from './own-topic-writer.ts';

/** The Kafka connection the catalog reads and writes through. */
export type CatalogKafka = KafkaConnection;

/**
 * How long a catalog record is safe from compaction: a conditional write that lost repairs the
 * log within moments, long before compaction could drop the winner's record for the loser's.
 */
export const CATALOG_MIN_COMPACTION_LAG_MS = 3_600_000;

/**
 * How long the catalog's active segment takes records: compaction never touches the active
 * segment, and Kafka's default (7 days, or 1 GiB) let every registration and state change pile up
 * in it, so every process that starts and every CLI call read all of it (a test machine's catalog
 * held 90,565 records in 22 MB, and `subscribers list` took 4.9 s).
 */
export const CATALOG_SEGMENT_MS = 3_600_000;

/**
 * The catalog topic: one partition (tiny, ordered: offsets are revisions), compacted, never
 * deleted by time, no record compacted within its first hour, and a segment rolled every hour so
 * compaction can reach what is older. The pusher creates it with this spec too.
 */
export function registryTopicSpec(replicationFactor: number) {
  return {
    topic: CATALOG_TOPIC,
    partitions: 1,
    replicationFactor,
    config: {
      'cleanup.policy': 'compact',
      'retention.ms': '-1',
      'min.compaction.lag.ms': String(CATALOG_MIN_COMPACTION_LAG_MS),
      'segment.ms': String(CATALOG_SEGMENT_MS),
    },
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
  readonly #writer: OwnTopicWriter;
  #aligned = false;

  /**
   * `sender`: a connected sender its owner keeps for the process's life (the API's LiveCatalog);
   * without one, each write connects a sender of its own.
   */
  constructor(kafka: CatalogKafka, options: { readonly sender?: RecordSender } = {}) {
    this.#kafka = kafka;
    this.#writer = new OwnTopicWriter(kafka, CATALOG_TOPIC, {
      ensure: () => this.#ensureTopic(),
      sender: options.sender,
    });
  }

  /** Every subscriber's latest record; an absent topic is an empty catalog. */
  async read(): Promise<CatalogSnapshot> {
    return foldRegistry(await this.#records());
  }

  async #records(): Promise<RawRegistryRecord[]> {
    try {
      const records = await readTopic(this.#kafka, { topic: CATALOG_TOPIC, purpose: 'catalog' });
      return records.map(catalogRecord);
    } catch (err) {
      if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return [];
      throw err;
    }
  }

  /**
   * Creates the catalog topic when missing (replication: up to 3, as many as there are brokers),
   * and, once per instance, brings an older topic's min.compaction.lag.ms up and segment.ms down
   * to the spec's when it may.
   */
  ensureTopic(): Promise<void> {
    return this.#writer.ensure();
  }

  async #ensureTopic(): Promise<void> {
    await ensureOwnTopic(this.#kafka, registryTopicSpec);
    if (this.#aligned) return;
    this.#aligned = true;
    await boundTopicSetting(this.#kafka, CATALOG_TOPIC, 'min.compaction.lag.ms', {
      atLeast: CATALOG_MIN_COMPACTION_LAG_MS,
    });
    await boundTopicSetting(this.#kafka, CATALOG_TOPIC, 'segment.ms', { atMost: CATALOG_SEGMENT_MS });
  }

  /**
   * Creates or replaces a subscriber's record only if its revision (CatalogSnapshot.revisions) is
   * still `expected`, or, with `'absent'`, only if it has no record (If-None-Match: *). Returns the
   * new revision (the ETag of the record now in effect). Throws RevisionMismatchError
   * (CatalogError `REVISION_MISMATCH`, canRetry false, `current`: the revision in effect, null
   * for none) when another write came first; nothing of this write stays in effect. Of two
   * concurrent writers with the same `expected`, exactly one succeeds. Costs two catalog reads
   * (one before, one after the write) and, for a loser, a repair write and a third read; with a
   * started `watcher` (a long-running process such as the API keeps one), the reads are its
   * records (the read-back waits until it has followed the write), not full reads of the topic.
   */
  async writeIfRevision(
    record: SubscriberRecord,
    expected: ExpectedRevision,
    options: { readonly watcher?: CatalogWatcher } = {},
  ): Promise<string> {
    const write = { key: record.definition.name, value: encodeSubscriberRecord(record), headers: {} };
    const state = await writeIfRevision(this.#revisionLog(options.watcher), write, expected);
    // Never 'deleted': a record that won is the record in effect.
    return state.kind === 'record' ? state.revision : state.at;
  }

  /**
   * Deletes a subscriber's record only if its revision is still `expected`: as writeIfRevision,
   * RevisionMismatchError when it is not (also when it has no record). A binding goes in the same
   * batch, before the tombstone, as in `remove`; it is written even when the delete loses (the
   * live record then holds the name: nameHolder). `watcher` as for writeIfRevision.
   */
  async removeIfRevision(
    name: string,
    expected: string,
    binding: NameBinding | null = null,
    options: { readonly watcher?: CatalogWatcher } = {},
  ): Promise<void> {
    const before: CatalogWrite[] =
      binding === null ? [] : [{ key: nameBindingKey(name), value: encodeNameBinding(binding), headers: {} }];
    const tombstone = { key: name, value: null, headers: {} };
    await writeIfRevision(this.#revisionLog(options.watcher), tombstone, expected, before);
  }

  #revisionLog(watcher: CatalogWatcher | undefined) {
    return {
      readRecords: (through?: string) =>
        watcher === undefined ? this.#records() : watcher.recordsThrough(through),
      send: async (records: readonly CatalogWrite[]) => {
        const positions = await this.#send([...records]);
        const last = positions.at(-1);
        if (last === undefined || last.partition !== 0)
          throw new CatalogError(
            'WRITE_UNCONFIRMED',
            `${CATALOG_TOPIC} has more than one partition: its offsets are no revisions`,
            false,
          );
        return last.offset;
      },
    };
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

  #send(records: CatalogWrite[]): Promise<RecordPosition[]> {
    return this.#writer.send(records);
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

/**
 * A record of the catalog topic for the fold: its offset is a revision on the one partition the
 * catalog has (a record of any other partition sets none).
 */
export function catalogRecord(r: ConsumedRecord): RawRegistryRecord {
  return {
    key: r.key,
    value: r.value,
    offset: `${r.partition}:${r.offset}`,
    ...(r.partition === 0 ? { logOffset: r.offset } : {}),
    headers: r.headers,
  };
}
