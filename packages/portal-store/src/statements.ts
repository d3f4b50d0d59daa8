import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * Prepared statements by their SQL, prepared once. The queries build their SQL from which
 * filters are set, so there are a bounded few shapes (the values are always parameters).
 */
export class Statements {
  readonly #db: DatabaseSync;
  readonly #prepared = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get(sql: string): StatementSync {
    let statement = this.#prepared.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#prepared.set(sql, statement);
    }
    return statement;
  }
}
