import { DatabaseSync } from 'node:sqlite';
import { PortalStoreError } from './errors.ts';

/** Bumped when the tables change: an index of another version is rebuilt from the log, never migrated. */
export const SCHEMA_VERSION = 1;

/**
 * Times are milliseconds since the epoch (integers compare and index cheaply). `first_at`, the
 * first step seen of a message, orders every list; `id` breaks ties, so (first_at, id) is the
 * keyset cursor. `endpoints` copies the message's tenant, type and first_at so that a list
 * limited to some endpoints walks an index of its own instead of filtering a tenant's messages.
 */
const TABLES = `
CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  tenant TEXT NOT NULL,
  event_id TEXT NOT NULL,
  type TEXT,
  first_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  state TEXT NOT NULL
);
CREATE UNIQUE INDEX messages_by_event ON messages (tenant, event_id);
CREATE INDEX messages_newest ON messages (tenant, first_at DESC, id DESC);
CREATE INDEX messages_by_state ON messages (tenant, state, first_at DESC, id DESC);
CREATE INDEX messages_by_type ON messages (tenant, type, first_at DESC, id DESC);
CREATE INDEX messages_by_age ON messages (last_at);

CREATE TABLE endpoints (
  message_id INTEGER NOT NULL,
  subscriber TEXT NOT NULL,
  tenant TEXT NOT NULL,
  type TEXT,
  first_at INTEGER NOT NULL,
  step TEXT NOT NULL,
  state TEXT NOT NULL,
  attempt_count INTEGER NOT NULL,
  last_status INTEGER,
  last_at INTEGER NOT NULL,
  last_attempt INTEGER NOT NULL,
  PRIMARY KEY (message_id, subscriber)
) WITHOUT ROWID;
CREATE INDEX endpoints_newest ON endpoints (tenant, subscriber, first_at DESC, message_id DESC);
CREATE INDEX endpoints_by_state ON endpoints (tenant, subscriber, state, first_at DESC, message_id DESC);
CREATE INDEX endpoints_by_type ON endpoints (tenant, subscriber, type, first_at DESC, message_id DESC);

CREATE TABLE attempts (
  message_id INTEGER NOT NULL,
  subscriber TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  step TEXT NOT NULL,
  source_topic TEXT NOT NULL,
  source_partition INTEGER NOT NULL,
  source_offset TEXT NOT NULL,
  at INTEGER NOT NULL,
  status INTEGER,
  duration_ms REAL,
  outcome TEXT,
  excerpt TEXT,
  tier INTEGER,
  due_at INTEGER,
  dead_letter_reason TEXT,
  origin_topic TEXT,
  origin_partition INTEGER,
  origin_offset TEXT,
  PRIMARY KEY (message_id, subscriber, attempt, step, source_topic, source_partition, source_offset)
) WITHOUT ROWID;

CREATE TABLE positions (
  topic TEXT NOT NULL,
  partition INTEGER NOT NULL,
  next_offset TEXT NOT NULL,
  PRIMARY KEY (topic, partition)
) WITHOUT ROWID;
`;

export interface OpenOptions {
  readonly path: string;
  readonly cacheBytes: number;
}

/**
 * Opens (creating if new) the store's file. Memory is SQLite's page cache, bounded by
 * `cacheBytes`, and nothing is memory-mapped, so what the process holds does not grow with the
 * file. WAL lets a reader never wait for the indexer's transaction; synchronous=NORMAL loses at
 * most the last transactions on a power cut, and those the indexer reads again from its
 * positions, which commit with them.
 */
export function openDatabase(options: OpenOptions): DatabaseSync {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(options.path);
  } catch (err) {
    throw new PortalStoreError('STORE_UNAVAILABLE', `cannot open ${options.path}: ${message(err)}`, false, {
      cause: err,
    });
  }
  try {
    // One process per store (docs/portal-store.md): the exclusive lock is taken now, by the
    // write below, and held until close; a second process is refused at once instead of each
    // write waiting on the other, which node:sqlite would do on the event loop.
    db.exec(`
      PRAGMA locking_mode = EXCLUSIVE;
      PRAGMA busy_timeout = 0;
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA cache_size = -${Math.floor(options.cacheBytes / 1024)};
      PRAGMA mmap_size = 0;
      PRAGMA temp_store = FILE;
      PRAGMA journal_size_limit = ${64 * 1024 * 1024};
      PRAGMA secure_delete = FAST;
    `);
    takeLock(db);
    createOrCheck(db, options.path);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof PortalStoreError) throw err;
    if (isBusy(err))
      throw new PortalStoreError(
        'STORE_IN_USE',
        `${options.path} is in use by another process: give each API process its own --portal-store`,
        false,
        { cause: err },
      );
    throw new PortalStoreError('STORE_UNAVAILABLE', `cannot set up ${options.path}: ${message(err)}`, false, {
      cause: err,
    });
  }
}

/** Takes the exclusive lock now (a write does), so a second process is told at its start. */
function takeLock(db: DatabaseSync): void {
  db.exec('BEGIN IMMEDIATE; COMMIT;');
}

/** SQLITE_BUSY: another connection holds the file's lock. */
function isBusy(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { errcode?: unknown }).errcode === 5;
}

function createOrCheck(db: DatabaseSync, path: string): void {
  const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
  if (version === SCHEMA_VERSION) return;
  if (version !== 0)
    throw new PortalStoreError(
      'STORE_UNAVAILABLE',
      `${path} is a portal index of schema ${version}, this hookstream writes ${SCHEMA_VERSION}: delete the file and it is rebuilt from the attempt log`,
      false,
    );
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(TABLES);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
