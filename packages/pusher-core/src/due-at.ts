import { MAX_RETRY_DELAY_MS, readDueAtMs } from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';

/** The longest wait the policy can schedule: the longest delay with full jitter (+100 %). */
export const MAX_DUE_AHEAD_MS = 2 * MAX_RETRY_DELAY_MS;

/**
 * When a tier record is due, bounded: its due_at header is anyone's text, and a record "due"
 * in year 9999 would hold its partition forever (or, past a Node timer's 24.8 days, wake it at
 * once, again and again). No record the pusher wrote is due later than MAX_DUE_AHEAD_MS after
 * it was written; the write time is itself capped at now so the bound cannot move ahead.
 */
export function boundedDueAtMs(record: ConsumedRecord, nowMs: number): number | null {
  const dueAt = readDueAtMs(record.headers);
  if (dueAt === null) return null;
  return Math.min(dueAt, Math.min(record.timestampMs, nowMs) + MAX_DUE_AHEAD_MS);
}
