import type { AttemptLogEntry } from '@hookstream/contracts';
import type { Replayable } from './tier-record.ts';

/**
 * The attempt-log step a replay adds: the event is scheduled in retry tier 1, due now, with a new
 * budget (attempt 0), so `hookstream ledger` shows it waiting there instead of still dead.
 */
export function replayAttemptEntry(r: Replayable, nowMs: number, operator: string): AttemptLogEntry {
  const at = new Date(nowMs).toISOString();
  return {
    eventId: r.eventId,
    subscriber: r.evidence.subscriber,
    step: 'retry-scheduled',
    attempt: 0,
    at,
    outcome: 'replayed',
    tier: 1,
    dueAt: at,
    origin: r.evidence.origin,
    source: r.letter.location,
    operator,
  };
}
