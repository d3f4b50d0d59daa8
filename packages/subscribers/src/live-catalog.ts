import { CATALOG_TOPIC, type LogFn, type SubscriberRecord } from '@hookstream/contracts';
import type { KafkaAdmin, KafkaConnection } from '@hookstream/kafka';
import { type CatalogSnapshot, foldRegistry } from './catalog-records.ts';
import type { ExpectedRevision } from './catalog-revisions.ts';
import { CatalogWatcher } from './catalog-watcher.ts';
import { SubscriberCatalog } from './subscriber-catalog.ts';

/**
 * The catalog as a long-running process (the management API) reads and writes it: a watcher
 * follows the topic, so a read costs one end-offset request and a wait until the watcher has
 * passed it, not a read of the whole topic. Every read still sees every write acknowledged
 * before it began, from this process or any other. Conditional writes read back through the
 * same watcher.
 */
export class LiveCatalog {
  readonly #catalog: SubscriberCatalog;
  readonly #watcher: CatalogWatcher;
  readonly #admin: KafkaAdmin;
  /** The last fold and how many records it folded: reads between writes fold nothing again. */
  #folded: { readonly count: number; readonly snapshot: CatalogSnapshot } | null = null;

  constructor(kafka: KafkaConnection, log: LogFn) {
    this.#catalog = new SubscriberCatalog(kafka);
    this.#watcher = new CatalogWatcher(kafka, { onSnapshot: async () => undefined, log });
    this.#admin = kafka.admin();
  }

  /** Follows the catalog to its end (creating the topic if missing). */
  async start(): Promise<void> {
    await this.#admin.connect();
    await this.#watcher.start();
  }

  /** Every subscriber's latest record, as of the catalog's end when the read began. */
  async read(): Promise<CatalogSnapshot> {
    const end = (await this.#admin.topicOffsets(CATALOG_TOPIC))?.find((p) => p.partition === 0)?.high;
    const records =
      end === undefined || end === '0'
        ? await this.#watcher.recordsThrough()
        : await this.#watcher.recordsThrough((BigInt(end) - 1n).toString());
    if (this.#folded?.count !== records.length)
      this.#folded = { count: records.length, snapshot: foldRegistry(records) };
    return this.#folded.snapshot;
  }

  write(records: readonly SubscriberRecord[]): Promise<void> {
    return this.#catalog.write(records);
  }

  /** SubscriberCatalog.writeIfRevision, its reads through the watcher. */
  writeIfRevision(record: SubscriberRecord, expected: ExpectedRevision): Promise<string> {
    return this.#catalog.writeIfRevision(record, expected, { watcher: this.#watcher });
  }

  /** The catalog for operations that read it whole themselves (a delete's purge). */
  get catalog(): SubscriberCatalog {
    return this.#catalog;
  }

  async stop(): Promise<void> {
    await this.#watcher.stop();
    await this.#admin.disconnect();
  }
}
