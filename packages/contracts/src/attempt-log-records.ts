import { z } from 'zod';
import { AttemptLogEntry } from './attempt-log.ts';

/**
 * Entries one attempt log record carries at most. A pusher writes its entries in batch records,
 * one per partition and flush (far fewer records for Kafka to encode than one per attempt); the
 * bound keeps a record small next to the broker's 1 MiB limit and bounds what a reader holds
 * for one record.
 */
export const ATTEMPT_BATCH_MAX_ENTRIES = 100;

/**
 * A batch record's value: `{"entries":[…]}`. Every entry hashes (by event id, with the default
 * partitioner) to the partition the record is in, and the record's key is its first entry's event
 * id, so the record lands there and a reader of one event still reads one partition. Each entry
 * is parsed on its own: a bad one costs only itself.
 */
export const AttemptLogBatch = z.object({
  entries: z.array(z.unknown()).min(1).max(ATTEMPT_BATCH_MAX_ENTRIES),
});
export type AttemptLogBatch = z.infer<typeof AttemptLogBatch>;

/** The entries of one attempt log record, and how many of what it held were not entries. */
export interface AttemptRecordEntries {
  readonly entries: AttemptLogEntry[];
  readonly invalid: number;
  /** Why the first one was not (for a warning), when one was not. */
  readonly why?: string;
}

/**
 * Reads one record of the attempt log, in either form: a single entry (every record written
 * before batch records, and the replay tool's) or a batch. Never throws.
 */
export function attemptEntriesOf(value: Buffer | null): AttemptRecordEntries {
  if (value === null) return { entries: [], invalid: 1, why: 'no value' };
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch {
    return { entries: [], invalid: 1, why: 'not JSON' };
  }
  const batch = isBatchShaped(json) ? AttemptLogBatch.safeParse(json) : null;
  if (batch === null) {
    const entry = AttemptLogEntry.safeParse(json);
    return entry.success
      ? { entries: [entry.data], invalid: 0 }
      : { entries: [], invalid: 1, why: entry.error.message };
  }
  if (!batch.success) return { entries: [], invalid: 1, why: batch.error.message };
  const entries: AttemptLogEntry[] = [];
  let invalid = 0;
  let why: string | undefined;
  for (const item of batch.data.entries) {
    const entry = AttemptLogEntry.safeParse(item);
    if (entry.success) entries.push(entry.data);
    else {
      invalid++;
      why ??= entry.error.message;
    }
  }
  return why === undefined ? { entries, invalid } : { entries, invalid, why };
}

function isBatchShaped(json: unknown): boolean {
  return typeof json === 'object' && json !== null && 'entries' in json && !('eventId' in json);
}

/**
 * Whether a record may hold an entry of `eventId`, cheaply and before any parse: a single entry is
 * keyed by its event id; a batch record holds the id's bytes somewhere in its value.
 */
export function attemptRecordMayHold(
  record: { readonly key: string | null; readonly value: Buffer | null },
  eventId: string,
): boolean {
  if (record.key === eventId) return true;
  return record.value?.includes(eventId) ?? false;
}
