import type { LedgerStep } from '@hookstream/contracts';
import type { EndpointState, MessageState, MessageSummary } from './contracts.ts';
import { iso, num, numOrNull, type Row, text, textOrNull } from './rows.ts';
import { messageState } from './state.ts';
import type { Statements } from './statements.ts';

// A JSON array parameter keeps one statement shape for any number of ids.
const MESSAGES_BY_ID = `SELECT id, event_id, type, first_at, last_at, state FROM messages
  WHERE id IN (SELECT value FROM json_each(?))`;
const ENDPOINTS_OF = `SELECT message_id, subscriber, step, state, attempt_count, last_status, last_at
  FROM endpoints WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY subscriber`;

/** The messages of these ids, in this order, each with its endpoints (only these, when given). */
export function summaries(
  db: Statements,
  ids: readonly number[],
  subscribers: readonly string[] | undefined,
): MessageSummary[] {
  if (ids.length === 0) return [];
  const json = JSON.stringify(ids);
  const endpoints = new Map<number, Row[]>();
  for (const row of db.get(ENDPOINTS_OF).all(json) as Row[]) {
    const id = num(row, 'message_id');
    const rows = endpoints.get(id);
    if (rows === undefined) endpoints.set(id, [row]);
    else rows.push(row);
  }
  const messages = new Map((db.get(MESSAGES_BY_ID).all(json) as Row[]).map((r) => [num(r, 'id'), r]));
  return ids.flatMap((id) => {
    const message = messages.get(id);
    const summary = message && summaryOf(message, endpoints.get(id) ?? [], subscribers);
    return summary ? [summary] : [];
  });
}

/**
 * A message as its shown endpoints see it. Limited to some endpoints, its state and last time
 * are theirs alone (another endpoint's failure is not this view's to see); null when none of
 * them has a step of it.
 */
export function summaryOf(
  message: Row,
  endpointRows: readonly Row[],
  subscribers: readonly string[] | undefined,
): MessageSummary | null {
  const shown = subscribers === undefined ? null : new Set(subscribers);
  const endpoints = endpointRows
    .filter((r) => shown === null || shown.has(text(r, 'subscriber')))
    .map(endpointOf);
  if (shown !== null && endpoints.length === 0) return null;
  const limited = shown !== null;
  return {
    eventId: text(message, 'event_id'),
    type: textOrNull(message, 'type'),
    firstAt: iso(message, 'first_at'),
    lastAt: limited ? latest(endpoints) : iso(message, 'last_at'),
    state: limited ? messageState(endpoints.map((e) => e.state)) : (text(message, 'state') as MessageState),
    endpoints,
  };
}

function endpointOf(row: Row): EndpointState {
  return {
    subscriber: text(row, 'subscriber'),
    // The schema stores only these values (ingest.ts writes them from parsed entries).
    state: text(row, 'state') as MessageState,
    step: text(row, 'step') as LedgerStep,
    attemptCount: num(row, 'attempt_count'),
    lastStatus: numOrNull(row, 'last_status'),
    lastAt: iso(row, 'last_at'),
  };
}

function latest(endpoints: readonly EndpointState[]): string {
  return new Date(Math.max(...endpoints.map((e) => Date.parse(e.lastAt)))).toISOString();
}
