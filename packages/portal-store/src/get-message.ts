import type { DeadLetterReason, LedgerStep, RecordLocation } from '@hookstream/contracts';
import { type AttemptRecord, MAX_ATTEMPTS_PER_ENDPOINT, type MessageDetail } from './contracts.ts';
import { summaryOf } from './message-rows.ts';
import { iso, isoOrNull, num, numOrNull, type Row, text, textOrNull } from './rows.ts';
import type { Statements } from './statements.ts';

const MESSAGE = `SELECT id, event_id, type, first_at, last_at, state FROM messages WHERE tenant = ? AND event_id = ?`;
const ENDPOINTS = `SELECT message_id, subscriber, step, state, attempt_count, last_status, last_at
  FROM endpoints WHERE message_id = ? ORDER BY subscriber`;
const ATTEMPTS = `SELECT * FROM attempts WHERE message_id = ? AND subscriber = ?
  ORDER BY at DESC, attempt DESC LIMIT ${MAX_ATTEMPTS_PER_ENDPOINT + 1}`;
const ORIGIN = `SELECT a.origin_topic, a.origin_partition, a.origin_offset
  FROM messages m JOIN attempts a ON a.message_id = m.id
  WHERE m.tenant = ? AND m.event_id = ? AND a.origin_topic IS NOT NULL LIMIT 1`;

/**
 * One message of a tenant with every endpoint's attempts (only these endpoints', when given).
 * Null when the tenant has no such message, or none of the endpoints has a step of it: another
 * tenant's event id looks exactly like one that does not exist.
 */
export function getMessage(
  db: Statements,
  tenant: string,
  eventId: string,
  subscribers: readonly string[] | undefined,
): MessageDetail | null {
  const message = db.get(MESSAGE).get(tenant, eventId) as Row | undefined;
  if (message === undefined) return null;
  const id = num(message, 'id');
  const summary = summaryOf(message, db.get(ENDPOINTS).all(id) as Row[], subscribers);
  if (summary === null) return null;
  return {
    ...summary,
    endpoints: summary.endpoints.map((endpoint) => {
      const newest = db.get(ATTEMPTS).all(id, endpoint.subscriber) as Row[];
      const kept = newest.slice(0, MAX_ATTEMPTS_PER_ENDPOINT).reverse();
      return { ...endpoint, attempts: kept.map(attemptOf), truncated: newest.length > kept.length };
    }),
  };
}

/**
 * The events-topic record a tenant's message came from, as its steps name it; null when the
 * tenant has no such message or no step names one. Every step of an event names the same record.
 */
export function messageOrigin(db: Statements, tenant: string, eventId: string): RecordLocation | null {
  const row = db.get(ORIGIN).get(tenant, eventId) as Row | undefined;
  return row === undefined ? null : location(row, 'origin');
}

function attemptOf(row: Row): AttemptRecord {
  return {
    attempt: num(row, 'attempt'),
    // The schema stores only values parsed from AttemptLogEntry (ingest.ts).
    step: text(row, 'step') as LedgerStep,
    at: iso(row, 'at'),
    status: numOrNull(row, 'status'),
    durationMs: numOrNull(row, 'duration_ms'),
    outcome: textOrNull(row, 'outcome'),
    excerpt: textOrNull(row, 'excerpt'),
    tier: numOrNull(row, 'tier'),
    dueAt: isoOrNull(row, 'due_at'),
    deadLetterReason: textOrNull(row, 'dead_letter_reason') as DeadLetterReason | null,
    origin: textOrNull(row, 'origin_topic') === null ? null : location(row, 'origin'),
    source: location(row, 'source'),
  };
}

function location(row: Row, prefix: 'origin' | 'source'): RecordLocation {
  return {
    topic: text(row, `${prefix}_topic`),
    partition: num(row, `${prefix}_partition`),
    offset: text(row, `${prefix}_offset`),
  };
}
