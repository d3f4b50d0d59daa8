import type { DatabaseSync } from 'node:sqlite';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { num, type Row } from './rows.ts';
import type { Statements } from './statements.ts';

/** Messages removed per transaction: each batch blocks the event loop for a moment only. */
const BATCH = 500;

/**
 * Deletes the messages `select` names (`select` takes the batch size and answers ids), with
 * their endpoints and attempts, a batch per transaction, yielding to the event loop between
 * batches, until none is left. Returns how many messages went.
 */
export async function deleteInBatches(
  db: DatabaseSync,
  statements: Statements,
  select: (batch: number) => readonly Row[],
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const ids = JSON.stringify(select(BATCH).map((r) => num(r, 'id')));
    db.exec('BEGIN IMMEDIATE');
    let removed: number;
    try {
      const inBatch = 'IN (SELECT value FROM json_each(?))';
      statements.get(`DELETE FROM attempts WHERE message_id ${inBatch}`).run(ids);
      statements.get(`DELETE FROM endpoints WHERE message_id ${inBatch}`).run(ids);
      removed = Number(statements.get(`DELETE FROM messages WHERE id ${inBatch}`).run(ids).changes);
      db.exec('COMMIT');
    } catch (err) {
      db.exec('ROLLBACK');
      throw err;
    }
    deleted += removed;
    if (removed < BATCH) return deleted;
    await nextTurn();
  }
}
