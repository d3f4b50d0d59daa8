import { DeadLetterReason, EventId } from '@hookstream/contracts';
import { z } from 'zod';
import type { DeadLetter } from './dead-letter.ts';

/** `404`, a class like `5xx`, or `none` (no HTTP response: timeout, connection error, poison). */
export const StatusMatch = z
  .string()
  .regex(/^([1-5]\d\d|[1-5]xx|none)$/, 'an HTTP status, a class like 5xx, or none');
export type StatusMatch = z.infer<typeof StatusMatch>;

/** Which dead letters a list or replay works on; every given criterion must hold. */
export const DlqSelection = z.object({
  eventIds: z.array(EventId).default([]),
  /** Dead-lettered at or after (ms since epoch). */
  sinceMs: z.number().optional(),
  /** Dead-lettered before (ms since epoch). */
  untilMs: z.number().optional(),
  reasons: z.array(DeadLetterReason).default([]),
  statuses: z.array(StatusMatch).default([]),
  /** At most this many, oldest first. */
  limit: z.number().int().positive().optional(),
});
export type DlqSelection = z.infer<typeof DlqSelection>;

export function matchesStatus(status: number | undefined, match: StatusMatch): boolean {
  if (match === 'none') return status === undefined;
  if (status === undefined) return false;
  if (match.endsWith('xx')) return Math.floor(status / 100) === Number(match[0]);
  return status === Number(match);
}

function matches(letter: DeadLetter, selection: DlqSelection): boolean {
  if (
    selection.eventIds.length > 0 &&
    (letter.eventId === null || !selection.eventIds.includes(letter.eventId))
  )
    return false;
  if (selection.sinceMs !== undefined && letter.deadLetteredAtMs < selection.sinceMs) return false;
  if (selection.untilMs !== undefined && letter.deadLetteredAtMs >= selection.untilMs) return false;
  if (
    selection.reasons.length > 0 &&
    (letter.evidence === null || !selection.reasons.includes(letter.evidence.reason))
  )
    return false;
  if (
    selection.statuses.length > 0 &&
    (letter.evidence === null || !selection.statuses.some((m) => matchesStatus(letter.evidence?.status, m)))
  )
    return false;
  return true;
}

/** Oldest dead letter first; ties (same millisecond) in DLQ partition, then offset order. */
export function compareDeadLetters(a: DeadLetter, b: DeadLetter): number {
  if (a.deadLetteredAtMs !== b.deadLetteredAtMs) return a.deadLetteredAtMs - b.deadLetteredAtMs;
  if (a.location.partition !== b.location.partition) return a.location.partition - b.location.partition;
  const d = BigInt(a.location.offset) - BigInt(b.location.offset);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The dead letters the selection names, oldest first, cut to its limit. */
export function selectDeadLetters(letters: readonly DeadLetter[], selection: DlqSelection): DeadLetter[] {
  const chosen = letters.filter((l) => matches(l, selection)).sort(compareDeadLetters);
  return selection.limit === undefined ? chosen : chosen.slice(0, selection.limit);
}
