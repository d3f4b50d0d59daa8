import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { AttemptLogEntry } from '@hookstream/contracts';
import type { ApplyResult, IndexPosition, MessageState } from './contracts.ts';
import { num, type Row, text, textOrNull } from './rows.ts';
import { endpointState, messageState } from './state.ts';

/** What writing one entry did. */
type Written = 'applied' | 'duplicate' | 'untenanted';

/**
 * Writes attempt log entries into the tables. Each entry is one attempt row; its endpoint's and
 * its message's states follow from it. An entry already there (same message, endpoint, attempt,
 * step and source record) changes nothing, so applying the same entries again is harmless.
 */
export class EntryWriter {
  readonly #db: DatabaseSync;
  readonly #insertMessage: StatementSync;
  readonly #findMessage: StatementSync;
  readonly #laterStep: StatementSync;
  readonly #earlierStep: StatementSync;
  readonly #typeFound: StatementSync;
  readonly #insertAttempt: StatementSync;
  readonly #upsertEndpoint: StatementSync;
  readonly #followMessage: StatementSync;
  readonly #endpointStates: StatementSync;
  readonly #setState: StatementSync;
  readonly #savePosition: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    // Insert, else touch only what changed: an update naming a column rewrites every index of
    // it, and most steps change only last_at.
    this.#insertMessage = db.prepare(`
      INSERT INTO messages (tenant, event_id, type, first_at, last_at, state) VALUES (?, ?, ?, ?, ?, 'pending')
      ON CONFLICT (tenant, event_id) DO NOTHING RETURNING id, type, first_at`);
    this.#findMessage = db.prepare(
      'SELECT id, type, first_at FROM messages WHERE tenant = ? AND event_id = ?',
    );
    this.#laterStep = db.prepare('UPDATE messages SET last_at = ? WHERE id = ? AND last_at < ?');
    this.#earlierStep = db.prepare('UPDATE messages SET first_at = ? WHERE id = ? AND first_at > ?');
    this.#typeFound = db.prepare('UPDATE messages SET type = ? WHERE id = ? AND type IS NULL');
    this.#insertAttempt = db.prepare(`
      INSERT OR IGNORE INTO attempts (message_id, subscriber, attempt, step, source_topic, source_partition,
        source_offset, at, status, duration_ms, outcome, excerpt, tier, due_at, dead_letter_reason,
        origin_topic, origin_partition, origin_offset)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    // In DO UPDATE, bare columns are the stored row: the step replaces the endpoint's latest
    // only when it is as new or newer (the log may hold an older step after a newer one).
    this.#upsertEndpoint = db.prepare(`
      INSERT INTO endpoints (message_id, subscriber, tenant, type, first_at, step, state, attempt_count,
        last_status, last_at, last_attempt)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (message_id, subscriber) DO UPDATE SET
        attempt_count = attempt_count + excluded.attempt_count,
        step = iif((excluded.last_at, excluded.last_attempt) >= (last_at, last_attempt), excluded.step, step),
        state = iif((excluded.last_at, excluded.last_attempt) >= (last_at, last_attempt), excluded.state, state),
        last_status = iif((excluded.last_at, excluded.last_attempt) >= (last_at, last_attempt), excluded.last_status, last_status),
        last_attempt = iif((excluded.last_at, excluded.last_attempt) >= (last_at, last_attempt), excluded.last_attempt, last_attempt),
        last_at = max(last_at, excluded.last_at)`);
    this.#followMessage = db.prepare(`
      UPDATE endpoints SET first_at = ?, type = ? WHERE message_id = ? AND (first_at <> ? OR type IS NOT ?)`);
    this.#endpointStates = db.prepare('SELECT state FROM endpoints WHERE message_id = ?');
    this.#setState = db.prepare('UPDATE messages SET state = ? WHERE id = ? AND state <> ?');
    this.#savePosition = db.prepare(`
      INSERT INTO positions (topic, partition, next_offset) VALUES (?, ?, ?)
      ON CONFLICT (topic, partition) DO UPDATE SET next_offset = excluded.next_offset`);
  }

  /** Every entry and the positions after them, in one transaction: all of it or none. */
  apply(entries: readonly AttemptLogEntry[], positions: readonly IndexPosition[]): ApplyResult {
    const counts = { applied: 0, duplicate: 0, untenanted: 0 };
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      for (const entry of entries) counts[this.#write(entry)] += 1;
      for (const p of positions) this.#savePosition.run(p.topic, p.partition, p.nextOffset);
      this.#db.exec('COMMIT');
    } catch (err) {
      this.#db.exec('ROLLBACK');
      throw err;
    }
    return { applied: counts.applied, duplicates: counts.duplicate, untenanted: counts.untenanted };
  }

  #write(entry: AttemptLogEntry): Written {
    if (entry.tenant === undefined) return 'untenanted';
    const at = Date.parse(entry.at);
    const message = this.#message(entry.tenant, entry, at);
    const messageId = num(message, 'id');
    const type = textOrNull(message, 'type');
    const firstAt = num(message, 'first_at');
    if (this.#insertAttempt.run(...attemptValues(messageId, entry, at)).changes === 0) return 'duplicate';
    const state = endpointState(entry.step);
    this.#upsertEndpoint.run(
      messageId,
      entry.subscriber,
      entry.tenant,
      type,
      firstAt,
      entry.step,
      state,
      entry.attempt > 0 ? 1 : 0,
      entry.status ?? null,
      at,
      entry.attempt,
    );
    // An older step arriving late moves the message's first_at (or brings its type): its other
    // endpoints' copies follow.
    this.#followMessage.run(firstAt, type, messageId, firstAt, type);
    const states = (this.#endpointStates.all(messageId) as Row[]).map(
      (r) => text(r, 'state') as MessageState,
    );
    const derived = messageState(states);
    this.#setState.run(derived, messageId, derived);
    return 'applied';
  }

  /** The entry's message row, made or moved to cover the entry's time and type. */
  #message(tenant: string, entry: AttemptLogEntry, at: number): Row {
    const type = entry.type ?? null;
    const key = [tenant, entry.eventId] as const;
    const made = this.#insertMessage.get(...key, type, at, at) as Row | undefined;
    if (made !== undefined) return made;
    const found = this.#findMessage.get(...key) as Row;
    const id = num(found, 'id');
    this.#laterStep.run(at, id, at);
    if (this.#earlierStep.run(at, id, at).changes === 0 && (type === null || found.type !== null))
      return found;
    if (type !== null) this.#typeFound.run(type, id);
    return this.#findMessage.get(...key) as Row;
  }
}

function attemptValues(messageId: number, entry: AttemptLogEntry, at: number) {
  return [
    messageId,
    entry.subscriber,
    entry.attempt,
    entry.step,
    entry.source.topic,
    entry.source.partition,
    entry.source.offset,
    at,
    entry.status ?? null,
    entry.durationMs ?? null,
    entry.outcome ?? null,
    entry.excerpt ?? null,
    entry.tier ?? null,
    entry.dueAt === undefined ? null : Date.parse(entry.dueAt),
    entry.deadLetterReason ?? null,
    entry.origin?.topic ?? null,
    entry.origin?.partition ?? null,
    entry.origin?.offset ?? null,
  ] as const;
}
