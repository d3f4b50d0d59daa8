import { EventId, formatLocation, RecordLocation, SubscriberName, TenantId } from '@hookstream/contracts';
import { z } from 'zod';
import type { DeadLetter } from './dead-letter.ts';
import { REPLAY_LEASE_KEY } from './replay-lease.ts';
import type { StoredRecord } from './stored-record.ts';
import type { Replayable, ReplayStamp } from './tier-record.ts';

/**
 * One replayed DLQ record, in the subscriber's compacted replay log (key = the DLQ location,
 * `<topic>:<partition>:<offset>`): what makes a second identical replay a no-op.
 */
export const ReplayLogEntry = z.object({
  dlq: RecordLocation,
  eventId: EventId,
  subscriber: SubscriberName,
  replayId: z.string().min(1),
  /** Who replayed it; absent in entries written before operators were recorded. */
  operator: z.string().min(1).max(200).optional(),
  replayedAt: z.iso.datetime({ offset: true }),
  /** Where the replayed record landed in retry tier 1. */
  tier: RecordLocation,
  /** This event's replay count for the subscriber after this replay. */
  replays: z.number().int().min(1),
  /**
   * The event's tenant (the dead letter's ce_tenant); absent without one, and in entries written
   * before tenants. Not strict: older readers read an entry with it.
   */
  tenant: TenantId.optional(),
});
export type ReplayLogEntry = z.infer<typeof ReplayLogEntry>;

export function replayLogKey(dlq: RecordLocation): string {
  return formatLocation(dlq);
}

/** What the replay log says was replayed, by DLQ location; the newest record of a key wins. */
export interface ReplayedIndex {
  readonly replayed: ReadonlyMap<string, ReplayLogEntry>;
  /** Records that were not replay log entries (ignored, but worth a warning). */
  readonly unreadable: number;
}

/**
 * Folds the replay log (read in offset order) the way compaction will: last write per key; null
 * value deletes. The lease record shares the log and is no entry (`leaseFromLog` reads it).
 */
export function indexReplayLog(records: readonly Pick<StoredRecord, 'key' | 'value'>[]): ReplayedIndex {
  const replayed = new Map<string, ReplayLogEntry>();
  let unreadable = 0;
  for (const r of records) {
    if (r.key === REPLAY_LEASE_KEY) continue;
    if (r.key === null) {
      unreadable++;
      continue;
    }
    if (r.value === null) {
      replayed.delete(r.key);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(r.value.toString('utf8'));
    } catch {
      unreadable++;
      continue;
    }
    const parsed = ReplayLogEntry.safeParse(json);
    if (parsed.success && replayLogKey(parsed.data.dlq) === r.key) replayed.set(r.key, parsed.data);
    else unreadable++;
  }
  return { replayed, unreadable };
}

export interface ReplayPlan {
  readonly send: readonly Replayable[];
  /** Already replayed (and not forced with --again). */
  readonly alreadyReplayed: readonly { readonly letter: DeadLetter; readonly entry: ReplayLogEntry }[];
  readonly unreplayable: readonly { readonly letter: DeadLetter; readonly problem: string }[];
}

/**
 * Splits the selection into what goes, what was replayed before, and what cannot be replayed.
 * `again` sends what was replayed before too, but not what another run replayed after
 * `startedMs` (when this run began): a run it raced and fenced, whose share is done once.
 */
export function planReplay(
  selected: readonly DeadLetter[],
  check: (letter: DeadLetter) => { ok: true; replayable: Replayable } | { ok: false; problem: string },
  index: ReplayedIndex,
  options: { readonly again: boolean; readonly startedMs?: number },
): ReplayPlan {
  const send: Replayable[] = [];
  const alreadyReplayed: { letter: DeadLetter; entry: ReplayLogEntry }[] = [];
  const unreplayable: { letter: DeadLetter; problem: string }[] = [];
  for (const letter of selected) {
    const checked = check(letter);
    if (!checked.ok) {
      unreplayable.push({ letter, problem: checked.problem });
      continue;
    }
    const entry = index.replayed.get(replayLogKey(letter.location));
    const sinceStart =
      entry !== undefined &&
      options.startedMs !== undefined &&
      Date.parse(entry.replayedAt) >= options.startedMs;
    if (entry !== undefined && (!options.again || sinceStart)) alreadyReplayed.push({ letter, entry });
    else send.push(checked.replayable);
  }
  return { send, alreadyReplayed, unreplayable };
}

/** The replay log record for one replayed DLQ record, once its tier copy was acknowledged. */
export function replayLogRecord(
  r: Replayable,
  tier: RecordLocation,
  stamp: Pick<ReplayStamp, 'replayId' | 'nowMs' | 'operator'>,
): { key: string; value: Buffer; entry: ReplayLogEntry } {
  const entry: ReplayLogEntry = {
    dlq: r.letter.location,
    eventId: r.eventId,
    subscriber: r.evidence.subscriber,
    replayId: stamp.replayId,
    operator: stamp.operator,
    replayedAt: new Date(stamp.nowMs).toISOString(),
    tier,
    replays: (r.evidence.replays ?? 0) + 1,
  };
  // Only a tenant name: an entry that did not parse would not stop a second replay of it.
  const tenant = r.letter.tenant;
  const named = tenant !== null && TenantId.safeParse(tenant).success ? { ...entry, tenant } : entry;
  return { key: replayLogKey(r.letter.location), value: Buffer.from(JSON.stringify(named)), entry: named };
}
