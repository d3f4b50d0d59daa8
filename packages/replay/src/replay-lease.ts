import { SubscriberName } from '@hookstream/contracts';
import { z } from 'zod';
import type { StoredRecord } from './stored-record.ts';

/**
 * The key of the lease record in the subscriber's replay log. Entries are keyed by a DLQ
 * location (`<topic>:<partition>:<offset>`, with colons), so this cannot be one of them.
 */
export const REPLAY_LEASE_KEY = 'replay-lease';

/** How long a lease lives unless its holder refreshes it (it does with every chunk). */
export const REPLAY_LEASE_TTL_MS = 60_000;

/** Which tool took the lease. */
export const ReplayTool = z.enum(['cli', 'console', 'api']);
export type ReplayTool = z.infer<typeof ReplayTool>;

/**
 * Who is replaying a subscriber's dead letters right now: written to the replay log in the
 * same Kafka transactions as the replay's records, so it is exactly as current as they are.
 * The transactional id is what fences; this record is what a refused run is told.
 */
export const ReplayLease = z.object({
  subscriber: SubscriberName,
  replayId: z.string().min(1).max(100),
  operator: z.string().min(1).max(200),
  host: z.string().min(1).max(255),
  pid: z.number().int().min(0),
  tool: ReplayTool,
  since: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }),
});
export type ReplayLease = z.infer<typeof ReplayLease>;

/** The holder a new run claims the lease as. */
export type LeaseHolder = Pick<ReplayLease, 'subscriber' | 'replayId' | 'operator' | 'host' | 'pid' | 'tool'>;

/** The lease as `holder` takes or refreshes it at `nowMs`: valid for REPLAY_LEASE_TTL_MS. */
export function leaseRecord(
  holder: LeaseHolder,
  sinceMs: number,
  nowMs: number,
): { key: string; value: Buffer; lease: ReplayLease } {
  const lease: ReplayLease = {
    ...holder,
    since: new Date(sinceMs).toISOString(),
    expiresAt: new Date(nowMs + REPLAY_LEASE_TTL_MS).toISOString(),
  };
  return { key: REPLAY_LEASE_KEY, value: Buffer.from(JSON.stringify(lease)), lease };
}

/** A finished run gives the lease back with a tombstone: the next run need not wait for expiry. */
export function leaseRelease(): { key: string; value: null } {
  return { key: REPLAY_LEASE_KEY, value: null };
}

/**
 * The lease the replay log holds (read in offset order, the last lease record wins), or null:
 * none ever, given back, or unreadable. An unreadable record cannot name a holder, and the
 * transactional id fences a live one anyway.
 */
export function leaseFromLog(records: readonly Pick<StoredRecord, 'key' | 'value'>[]): ReplayLease | null {
  let last: Pick<StoredRecord, 'key' | 'value'> | undefined;
  for (const r of records) if (r.key === REPLAY_LEASE_KEY) last = r;
  if (last?.value === null || last?.value === undefined) return null;
  return parseLease(last.value);
}

/**
 * The lease of the run that took over from `replayId`: the last lease of another run written
 * after this run's own last one, live, given back since, or expired. Both runs write as one
 * transactional id, so a commit after ours means the other run took the id after we did: we are
 * fenced, whatever error the broker gave us. Null when no other run's lease follows ours.
 */
export function supersedingLease(
  records: readonly Pick<StoredRecord, 'key' | 'value'>[],
  replayId: string,
): ReplayLease | null {
  let other: ReplayLease | null = null;
  for (const r of records) {
    if (r.key !== REPLAY_LEASE_KEY || r.value === null) continue;
    const lease = parseLease(r.value);
    if (lease === null) continue;
    other = lease.replayId === replayId ? null : lease;
  }
  return other;
}

function parseLease(value: Buffer): ReplayLease | null {
  try {
    const parsed = ReplayLease.safeParse(JSON.parse(value.toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A lease that still stops another run: not expired, and not this run's own. */
export function liveLease(
  lease: ReplayLease | null,
  nowMs: number,
  ownReplayId?: string,
): ReplayLease | null {
  if (lease === null || lease.replayId === ownReplayId) return null;
  return Date.parse(lease.expiresAt) > nowMs ? lease : null;
}

/** "rpl_… by alice on ops-1 (pid 4242, hookstream dlq replay) since …, lease until …". */
export function describeHolder(lease: ReplayLease): string {
  const tool =
    lease.tool === 'cli'
      ? 'hookstream dlq replay'
      : lease.tool === 'api'
        ? 'the management API'
        : 'the console';
  return `${lease.replayId} by ${lease.operator} on ${lease.host} (pid ${lease.pid}, ${tool}) since ${lease.since}, lease until ${lease.expiresAt}`;
}
