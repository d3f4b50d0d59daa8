import type { SQLInputValue } from 'node:sqlite';
import type { ListMessagesQuery, MessagePage } from './contracts.ts';
import { decodeCursor, encodeCursor, type ListPosition } from './cursor.ts';
import { summaries } from './message-rows.ts';
import { num, type Row } from './rows.ts';
import type { Statements } from './statements.ts';

/**
 * One index walk, newest first, of at most a page: the tenant's messages (or one endpoint's),
 * of one type or all, in one state or all. Each has an index whose order is the list's.
 */
interface Lane {
  readonly sql: string;
  readonly params: readonly SQLInputValue[];
}

/**
 * A page of a tenant's messages, newest first. Several endpoints or types are a lane each,
 * merged: every lane's order comes from its index, so no list sorts more than lanes × page
 * rows, however large the tenant.
 */
export function listMessages(db: Statements, query: ListMessagesQuery): MessagePage {
  if (query.subscribers?.length === 0) return { messages: [], nextCursor: null };
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const rows = lanes(query, after).flatMap((lane) => db.get(lane.sql).all(...lane.params) as Row[]);
  const ordered = newestDistinct(rows);
  const page = ordered.slice(0, query.limit);
  const last = page.at(-1);
  return {
    messages: summaries(
      db,
      page.map((p) => p.id),
      query.subscribers,
    ),
    nextCursor: ordered.length > query.limit && last !== undefined ? encodeCursor(last) : null,
  };
}

function lanes(query: ListMessagesQuery, after: ListPosition | null): Lane[] {
  const types: (string | null)[] = query.types ?? [null];
  const subscribers: (string | null)[] = query.subscribers ?? [null];
  return subscribers.flatMap((subscriber) => types.map((type) => lane(query, after, subscriber, type)));
}

function lane(
  query: ListMessagesQuery,
  after: ListPosition | null,
  subscriber: string | null,
  type: string | null,
): Lane {
  const id = subscriber === null ? 'id' : 'message_id';
  const where = ['tenant = ?'];
  const params: SQLInputValue[] = [query.tenant];
  const add = (clause: string, ...values: SQLInputValue[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (subscriber !== null) add('subscriber = ?', subscriber);
  if (type !== null) add('type = ?', type);
  if (query.state !== undefined) add('state = ?', query.state);
  if (query.eventId !== undefined)
    add(`${id} = (SELECT id FROM messages WHERE tenant = ? AND event_id = ?)`, query.tenant, query.eventId);
  if (query.since !== undefined) add('first_at >= ?', Date.parse(query.since));
  if (query.until !== undefined) add('first_at < ?', Date.parse(query.until));
  if (after !== null) add(`(first_at, ${id}) < (?, ?)`, after.firstAt, after.id);
  const table = subscriber === null ? 'messages' : 'endpoints';
  return {
    sql: `SELECT ${id} AS id, first_at FROM ${table} WHERE ${where.join(' AND ')}
          ORDER BY first_at DESC, ${id} DESC LIMIT ${query.limit + 1}`,
    params,
  };
}

/** The lanes' rows merged newest first, each message once. */
function newestDistinct(rows: readonly Row[]): ListPosition[] {
  const sorted = rows
    .map((r) => ({ firstAt: num(r, 'first_at'), id: num(r, 'id') }))
    .sort((a, b) => b.firstAt - a.firstAt || b.id - a.id);
  const seen = new Set<number>();
  const distinct: ListPosition[] = [];
  for (const position of sorted) {
    if (seen.has(position.id)) continue;
    seen.add(position.id);
    distinct.push(position);
  }
  return distinct;
}
