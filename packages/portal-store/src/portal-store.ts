import { statSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import type { AttemptLogEntry, RecordLocation } from '@hookstream/contracts';
import { EventId, SubscriberName, TenantId } from '@hookstream/contracts';
import { z } from 'zod';
import {
  type ApplyResult,
  type IndexPosition,
  ListMessagesQuery,
  MAX_LISTED_SUBSCRIBERS,
  type MessageDetail,
  type MessagePage,
  type StoreStats,
} from './contracts.ts';
import { PortalStoreError } from './errors.ts';
import { getMessage, messageOrigin } from './get-message.ts';
import { EntryWriter } from './ingest.ts';
import { listMessages } from './list-messages.ts';
import { deleteInBatches } from './retention.ts';
import { num, type Row, text } from './rows.ts';
import { openDatabase } from './schema.ts';
import { Statements } from './statements.ts';

/** As long as the attempt log topic keeps its records: what is older can no longer be rebuilt. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** SQLite's page cache: the memory the store holds at most, whatever the file's size. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

export const PortalStoreOptions = z.object({
  /** The database file; created with its tables when missing. */
  path: z.string().min(1),
  /** 1 MiB to 4 GiB (default DEFAULT_CACHE_BYTES). */
  cacheBytes: z
    .number()
    .int()
    .min(1024 * 1024)
    .max(4 * 1024 * 1024 * 1024)
    .optional(),
});
export type PortalStoreOptions = z.infer<typeof PortalStoreOptions>;

const SubscriberList = z.array(SubscriberName).max(MAX_LISTED_SUBSCRIBERS).optional();

/**
 * The portal's index of messages and attempts, kept from the attempt log in one SQLite file.
 * Synchronous underneath (node:sqlite): every query is a few index walks bounded by its page,
 * and the long deletes run in batches that yield between them.
 */
export class PortalStore {
  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #cacheBytes: number;
  readonly #statements: Statements;
  readonly #writer: EntryWriter;
  /** Tenants erased, and when: their entries from then or before are never indexed again. */
  readonly #erased = new Map<string, number>();

  constructor(options: PortalStoreOptions) {
    const { path, cacheBytes = DEFAULT_CACHE_BYTES } = parse(PortalStoreOptions, options);
    this.#path = path;
    this.#cacheBytes = cacheBytes;
    this.#db = openDatabase({ path, cacheBytes });
    this.#statements = new Statements(this.#db);
    this.#writer = new EntryWriter(this.#db);
  }

  /**
   * Indexes entries and records where reading the log goes on, in one transaction: after a
   * crash the positions and the rows agree, so the indexer resumes exactly after what is stored.
   */
  apply(entries: readonly AttemptLogEntry[], positions: readonly IndexPosition[] = []): ApplyResult {
    const kept = this.#erased.size === 0 ? entries : entries.filter((e) => !this.#isErased(e));
    return this.#writer.apply(kept, positions);
  }

  /**
   * A tenant's erasure (TenantErasure): its messages that began at or before `at` go, and entries
   * of them the log still holds are passed over from now on, so no later read of the attempt log
   * brings them back. Learned again at every start (the erasure stays in the links topic), it
   * removes only what is that old, never what came after.
   */
  async erase(tenant: string, at: string): Promise<number> {
    parse(TenantId, tenant);
    parse(z.iso.datetime({ offset: true }), at);
    const atMs = Date.parse(at);
    this.#erased.set(tenant, Math.max(atMs, this.#erased.get(tenant) ?? 0));
    const select = this.#statements.get('SELECT id FROM messages WHERE tenant = ? AND first_at <= ? LIMIT ?');
    const deleted = await deleteInBatches(
      this.#db,
      this.#statements,
      (n) => select.all(tenant, atMs, n) as Row[],
    );
    this.#db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return deleted;
  }

  #isErased(entry: AttemptLogEntry): boolean {
    const atMs = entry.tenant === undefined ? undefined : this.#erased.get(entry.tenant);
    return atMs !== undefined && Date.parse(entry.at) <= atMs;
  }

  /** The next offset of each partition of `topic` indexed so far (none: start at the beginning). */
  positions(topic: string): Map<number, string> {
    const rows = this.#statements
      .get('SELECT partition, next_offset FROM positions WHERE topic = ?')
      .all(topic) as Row[];
    return new Map(rows.map((r) => [num(r, 'partition'), text(r, 'next_offset')]));
  }

  /** PortalStoreError BAD_QUERY for input outside ListMessagesQuery, BAD_CURSOR for a foreign cursor. */
  listMessages(query: ListMessagesQuery): MessagePage {
    return listMessages(this.#statements, parse(ListMessagesQuery, query));
  }

  getMessage(tenant: string, eventId: string, subscribers?: readonly string[]): MessageDetail | null {
    parse(TenantId, tenant);
    parse(EventId, eventId);
    parse(SubscriberList, subscribers);
    return getMessage(this.#statements, tenant, eventId, subscribers);
  }

  /**
   * Where a tenant's message came from (its events-topic record), as its indexed steps say: what
   * a payload or a resend reads, found here instead of by reading an attempt log partition.
   */
  messageOrigin(tenant: string, eventId: string): RecordLocation | null {
    parse(TenantId, tenant);
    parse(EventId, eventId);
    return messageOrigin(this.#statements, tenant, eventId);
  }

  /**
   * Removes every message, endpoint state and attempt of the tenant (a data deletion request),
   * then checkpoints the write-ahead log so the deleted rows are not left in it. Deleted cells
   * are zeroed in place (secure_delete), not only unlinked. Returns how many messages went.
   */
  async deleteTenant(tenant: string): Promise<number> {
    parse(TenantId, tenant);
    const select = this.#statements.get('SELECT id FROM messages WHERE tenant = ? LIMIT ?');
    const deleted = await deleteInBatches(this.#db, this.#statements, (n) => select.all(tenant, n) as Row[]);
    this.#db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return deleted;
  }

  /** Retention: removes messages whose latest step is older than `olderThanMs` before `nowMs`. */
  async prune(olderThanMs: number = DEFAULT_RETENTION_MS, nowMs: number = Date.now()): Promise<number> {
    parse(z.number().int().min(0), olderThanMs);
    const cutoff = nowMs - olderThanMs;
    const select = this.#statements.get('SELECT id FROM messages WHERE last_at < ? ORDER BY last_at LIMIT ?');
    return deleteInBatches(this.#db, this.#statements, (n) => select.all(cutoff, n) as Row[]);
  }

  stats(): StoreStats {
    const count = (table: string) =>
      num(this.#statements.get(`SELECT count(*) AS n FROM ${table}`).get() as Row, 'n');
    const pages = this.#statements.get(
      'SELECT page_count * page_size AS bytes FROM pragma_page_count, pragma_page_size',
    );
    return {
      messages: count('messages'),
      endpointStates: count('endpoints'),
      attempts: count('attempts'),
      fileBytes: num(pages.get() as Row, 'bytes'),
      walBytes: fileSize(`${this.#path}-wal`),
      cacheBytes: this.#cacheBytes,
    };
  }

  /** Closing twice is harmless. */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new PortalStoreError('BAD_QUERY', z.prettifyError(result.error), false);
  return result.data;
}
