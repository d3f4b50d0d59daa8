import { CATALOG_TOPIC, type LogFn } from '@hookstream/contracts';
import { type KafkaConnection, TopicFollower } from '@hookstream/kafka';
import { type CatalogSnapshot, foldRegistry, type RawRegistryRecord } from './catalog-records.ts';
import { catalogRecord, SubscriberCatalog } from './subscriber-catalog.ts';

export interface CatalogWatcherOptions {
  /** Called with every new snapshot, one at a time; a failure is logged, the watch goes on. */
  readonly onSnapshot: (snapshot: CatalogSnapshot) => Promise<void>;
  readonly log: LogFn;
}

/** Records arriving within this long of each other make one snapshot (an apply writes a batch). */
const SETTLE_MS = 50;

/**
 * Follows the catalog topic record by record and hands on a fresh snapshot shortly after each
 * change: a write reaches `onSnapshot` within a fetch, not a poll interval plus a full read.
 */
export class CatalogWatcher {
  readonly #catalog: SubscriberCatalog;
  readonly #follower: TopicFollower;
  readonly #options: CatalogWatcherOptions;
  readonly #records: RawRegistryRecord[] = [];
  #last: CatalogSnapshot | null = null;
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  #handing: Promise<void> = Promise.resolve();

  constructor(kafka: KafkaConnection, options: CatalogWatcherOptions) {
    this.#catalog = new SubscriberCatalog(kafka);
    this.#options = options;
    this.#follower = new TopicFollower(kafka, {
      topic: CATALOG_TOPIC,
      purpose: 'catalog-watch',
      onRecord: (r) => {
        // With offsets and headers: conditional writes fold by the same rule everywhere.
        this.#records.push(catalogRecord(r));
        if (this.#started) this.#schedule();
      },
    });
  }

  /** The last snapshot handed on; null before the first. */
  get snapshot(): CatalogSnapshot | null {
    return this.#last;
  }

  /** Reads the registry to its end (creating the topic if missing) and keeps following it. */
  async start(): Promise<CatalogSnapshot> {
    await this.#catalog.ensureTopic();
    await this.#follower.start();
    this.#started = true;
    this.#last = foldRegistry(this.#records);
    await this.#hand(this.#last);
    return this.#last;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      const snapshot = foldRegistry(this.#records);
      this.#last = snapshot;
      this.#handing = this.#handing.then(() => this.#hand(snapshot));
    }, SETTLE_MS);
  }

  async #hand(snapshot: CatalogSnapshot): Promise<void> {
    try {
      await this.#options.onSnapshot(snapshot);
    } catch (err) {
      this.#options.log('warn', 'a catalog change could not be applied', {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#follower.stop();
    await this.#handing;
  }
}
