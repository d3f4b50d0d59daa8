import { CATALOG_TOPIC, type LogFn } from '@hookstream/contracts';
import { type KafkaConnection, TopicFollower } from '@hookstream/kafka';
import { CatalogFolder, type CatalogSnapshot, type RawRegistryRecord } from './catalog-records.ts';
import { CatalogError } from './errors.ts';
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
  /** The records folded as they arrive: a snapshot copies the fold, never refolds the log. */
  readonly #folder = new CatalogFolder();
  #folded: { readonly count: number; readonly snapshot: CatalogSnapshot } | null = null;
  #last: CatalogSnapshot | null = null;
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  #handing: Promise<void> = Promise.resolve();
  /** The offset after the last record seen (the one catalog partition). */
  #next = 0n;
  readonly #waiting = new Set<{ readonly offset: bigint; readonly seen: () => void }>();

  constructor(kafka: KafkaConnection, options: CatalogWatcherOptions) {
    this.#catalog = new SubscriberCatalog(kafka);
    this.#options = options;
    this.#follower = new TopicFollower(kafka, {
      topic: CATALOG_TOPIC,
      purpose: 'catalog-watch',
      onRecord: (r) => {
        // With offsets and headers: conditional writes fold by the same rule everywhere.
        const record = catalogRecord(r);
        this.#records.push(record);
        this.#folder.add(record);
        if (r.partition === 0) this.#passed(BigInt(r.offset) + 1n);
        if (this.#started) this.#schedule();
      },
    });
  }

  /**
   * Every record followed so far once the one at `offset` (a write of this process) was seen;
   * without an offset, at once. CatalogError `WRITE_UNCONFIRMED` (canRetry) when it is not seen
   * within `timeoutMs` (default 10 s). For conditional writes that read back through a running
   * watcher (SubscriberCatalog.writeIfRevision's `watcher`) instead of a full read.
   */
  async recordsThrough(offset?: string, timeoutMs = 10_000): Promise<RawRegistryRecord[]> {
    if (offset !== undefined && BigInt(offset) >= this.#next) {
      const wanted = BigInt(offset);
      let timer: NodeJS.Timeout | undefined;
      let entry: { readonly offset: bigint; readonly seen: () => void } | undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          entry = { offset: wanted, seen: resolve };
          this.#waiting.add(entry);
          timer = setTimeout(
            () =>
              reject(
                new CatalogError(
                  'WRITE_UNCONFIRMED',
                  `the catalog watcher did not see offset ${offset} within ${timeoutMs} ms`,
                  true,
                ),
              ),
            Math.min(Math.max(timeoutMs, 0), 600_000),
          );
        });
      } finally {
        clearTimeout(timer);
        if (entry !== undefined) this.#waiting.delete(entry);
      }
    }
    return [...this.#records];
  }

  /**
   * The catalog as of every record followed so far, once the one at `offset` was seen (as
   * recordsThrough): for a reader that asked the topic's end first, every write acknowledged
   * before it asked.
   */
  async snapshotThrough(offset?: string, timeoutMs?: number): Promise<CatalogSnapshot> {
    await this.recordsThrough(offset, timeoutMs);
    return this.#current();
  }

  /** The fold of every record followed so far; folded again only when a record arrived. */
  #current(): CatalogSnapshot {
    const count = this.#records.length;
    if (this.#folded?.count !== count) this.#folded = { count, snapshot: this.#folder.fold().snapshot };
    return this.#folded.snapshot;
  }

  #passed(next: bigint): void {
    if (next > this.#next) this.#next = next;
    for (const w of this.#waiting) if (w.offset < this.#next) w.seen();
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
    this.#last = this.#current();
    await this.#hand(this.#last);
    return this.#last;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      const snapshot = this.#current();
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
