import { CATALOG_TOPIC, type LogFn, type SubscriberRecord } from '@hookstream/contracts';
import { type KafkaAdmin, type KafkaConnection, RecordSender } from '@hookstream/kafka';
import { AuditTrail } from './audit-trail.ts';
import type { CatalogSnapshot } from './catalog-records.ts';
import type { ExpectedRevision } from './catalog-revisions.ts';
import { CatalogWatcher } from './catalog-watcher.ts';
import { SubscriberCatalog } from './subscriber-catalog.ts';

/**
 * The catalog as a long-running process (the management API) reads and writes it: a watcher
 * follows the topic, so a read costs one end-offset request and a wait until the watcher has
 * passed it (the watcher folds records as they arrive, never the whole topic again). Every read still sees every write acknowledged
 * before it began, from this process or any other. Conditional writes read back through the
 * same watcher; every write (the catalog's, the audit trail's) goes through one kept sender.
 */
export class LiveCatalog {
  readonly #catalog: SubscriberCatalog;
  readonly #watcher: CatalogWatcher;
  readonly #admin: KafkaAdmin;
  readonly #sender: RecordSender;
  /** The audit trail of this process's changes, written through the same kept sender. */
  readonly audit: AuditTrail;

  constructor(kafka: KafkaConnection, log: LogFn) {
    this.#sender = new RecordSender(kafka);
    this.#catalog = new SubscriberCatalog(kafka, { sender: this.#sender });
    this.audit = new AuditTrail(kafka, { sender: this.#sender });
    this.#watcher = new CatalogWatcher(kafka, { onSnapshot: async () => undefined, log });
    this.#admin = kafka.admin();
  }

  /**
   * Follows the catalog to its end (creating it, and the audit topic, if missing). A start that
   * fails closes what it opened, so a failed process can exit.
   */
  async start(): Promise<void> {
    try {
      await this.#admin.connect();
      await this.#sender.connect();
      await this.#watcher.start();
      // Now rather than in the first request that writes.
      await this.#catalog.ensureTopic();
      await this.audit.ensureTopic();
    } catch (err) {
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  /** Every subscriber's latest record, as of the catalog's end when the read began. */
  async read(): Promise<CatalogSnapshot> {
    // start() created the topic; its existence is not asked again (a listing of every topic).
    const end = (await this.#admin.existingTopicOffsets(CATALOG_TOPIC)).find((p) => p.partition === 0)?.high;
    return end === undefined || end === '0'
      ? this.#watcher.snapshotThrough()
      : this.#watcher.snapshotThrough((BigInt(end) - 1n).toString());
  }

  write(records: readonly SubscriberRecord[]): Promise<void> {
    return this.#catalog.write(records);
  }

  /** SubscriberCatalog.writeIfRevision, its reads through the watcher. */
  writeIfRevision(record: SubscriberRecord, expected: ExpectedRevision): Promise<string> {
    return this.#catalog.writeIfRevision(record, expected, { watcher: this.#watcher });
  }

  /** A connected admin kept for the process's life (stop() disconnects it), for measurements. */
  get admin(): KafkaAdmin {
    return this.#admin;
  }

  /** The catalog for operations that read it whole themselves (a delete's purge). */
  get catalog(): SubscriberCatalog {
    return this.#catalog;
  }

  async stop(): Promise<void> {
    await this.#watcher.stop();
    await this.#sender.disconnect();
    await this.#admin.disconnect();
  }
}
