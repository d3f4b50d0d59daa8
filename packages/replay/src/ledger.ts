import {
  type AttemptLogEntry,
  attemptEntriesOf,
  attemptRecordMayHold,
  type DeadLetterReason,
  type RecordLocation,
  SUBSCRIBER_GROUP_PREFIX,
  SubscriberName,
} from '@hookstream/contracts';
import type { StoredRecord } from './stored-record.ts';

/** The rewind that sent the event again, as its attempt log step says: when, and who made it. */
export interface RewindNote {
  readonly at: string;
  readonly by: string;
}

/** An event's state for one subscriber, as `hookstream ledger` reports it. */
export type LedgerState =
  | {
      readonly state: 'delivered';
      readonly at: string;
      readonly attempt: number;
      readonly status?: number;
      /** The batch request that carried the attempt. */
      readonly batchId?: string;
      /** An operator's rewind sent it again (this step is of that re-delivery). */
      readonly rewind?: RewindNote;
    }
  | {
      readonly state: 'retrying';
      readonly tier: number;
      readonly dueAt: string | null;
      readonly attempt: number;
      readonly replayed: boolean;
      /** Who replayed it, when it waits there because of a replay that recorded one. */
      readonly replayedBy?: string;
      /** The batch request whose answer sent it there. */
      readonly batchId?: string;
      readonly rewind?: RewindNote;
    }
  | {
      readonly state: 'dead-lettered';
      readonly at: string;
      readonly reason: DeadLetterReason | null;
      readonly attempt: number;
      readonly status?: number;
      readonly batchId?: string;
      readonly rewind?: RewindNote;
    }
  | {
      readonly state: 'filtered';
      /** When the pusher logged it; null when judged from the definition (no attempt log step). */
      readonly at: string | null;
      /** Judged from the definition: the event's type, which its eventTypes do not take. */
      readonly eventType?: string;
      /**
       * Judged from the definition: the event's tenant (its ce_tenant; null: it has none), which
       * the subscriber's tenant does not take.
       */
      readonly tenant?: string | null;
      /** Judged from the definition: the group's committed offset, past the event. */
      readonly committed?: string;
      /** The part of the subscriber's `filter` that refused it (from the attempt log). */
      readonly filter?: string;
      readonly rewind?: RewindNote;
    }
  /** Its offset is at or above the group's committed offset (or the group has none there yet). */
  | { readonly state: 'not-reached'; readonly committed: string | null }
  /** Below the committed offset but no attempt recorded: skipped by a later start position, or settled before the attempt log. */
  | { readonly state: 'passed-without-record'; readonly committed: string }
  /** Neither an attempt nor the event's events-topic record was found. */
  | { readonly state: 'unknown' };

export interface LedgerLine {
  readonly subscriber: string;
  readonly origin: RecordLocation | null;
  readonly ledger: LedgerState;
}

/** Committed offsets of a group on the origin topic: partition → next offset, null when none. */
export type Committed = ReadonlyMap<number, string | null>;

const STEP_RANK: Record<AttemptLogEntry['step'], number> = {
  'retry-scheduled': 0,
  filtered: 1,
  'dead-lettered': 2,
  delivered: 3,
};

/** The step that describes the present: the latest by time; at the same instant, the more final one. */
export function latestStep(entries: readonly AttemptLogEntry[]): AttemptLogEntry | undefined {
  let best: AttemptLogEntry | undefined;
  for (const e of entries) {
    if (best === undefined) {
      best = e;
      continue;
    }
    const d = Date.parse(e.at) - Date.parse(best.at);
    if (d > 0 || (d === 0 && (STEP_RANK[e.step] > STEP_RANK[best.step] || e.attempt > best.attempt)))
      best = e;
  }
  return best;
}

function fromStep(e: AttemptLogEntry): LedgerState {
  const rewind = e.rewind === undefined ? {} : { rewind: { at: e.rewind.at, by: e.rewind.by } };
  const status = {
    ...(e.status === undefined ? {} : { status: e.status }),
    ...(e.batchId === undefined ? {} : { batchId: e.batchId }),
    ...rewind,
  };
  switch (e.step) {
    case 'delivered':
      return { state: 'delivered', at: e.at, attempt: e.attempt, ...status };
    case 'retry-scheduled':
      return {
        state: 'retrying',
        tier: e.tier ?? 1,
        dueAt: e.dueAt ?? null,
        attempt: e.attempt,
        replayed: e.outcome === 'replayed',
        ...(e.operator === undefined ? {} : { replayedBy: e.operator }),
        ...(e.batchId === undefined ? {} : { batchId: e.batchId }),
        ...rewind,
      };
    case 'dead-lettered':
      return {
        state: 'dead-lettered',
        at: e.at,
        reason: e.deadLetterReason ?? null,
        attempt: e.attempt,
        ...status,
      };
    case 'filtered':
      return {
        state: 'filtered',
        at: e.at,
        ...(e.filter === undefined ? {} : { filter: e.filter }),
        ...rewind,
      };
  }
}

/** Whether a subscriber's definition takes events of a type (from the catalog). */
export type TypeFilter = (type: string) => boolean;

/**
 * Whether a subscriber's definition takes events of a tenant (undefined: an event without one),
 * from the catalog: `acceptsTenant` of its definition, the pusher's rule.
 */
export type TenantFilter = (tenant: string | undefined) => boolean;

/**
 * One subscriber's state for an event. The attempt log says what happened when it has a step for
 * the subscriber; otherwise the committed offset on the event's partition says whether the
 * subscriber got there yet. Past it without a step, an event whose type the definition does not
 * take was filtered: pushers log no step for those (one per subscriber per event is too many).
 */
export function resolveLedger(input: {
  readonly entries: readonly AttemptLogEntry[];
  readonly origin: RecordLocation | null;
  readonly committed: Committed | null;
  /** The event's ce_type; null or absent when unknown. */
  readonly eventType?: string | null | undefined;
  /** The subscriber's type filter; null or absent when its definition is unknown. */
  readonly accepts?: TypeFilter | null | undefined;
  /** The event's ce_tenant: null when it has none, absent when unknown. */
  readonly eventTenant?: string | null | undefined;
  /** The subscriber's tenant filter; null or absent when its definition is unknown. */
  readonly acceptsTenant?: TenantFilter | null | undefined;
}): LedgerState {
  const latest = latestStep(input.entries);
  if (latest !== undefined) return fromStep(latest);
  if (input.origin === null) return { state: 'unknown' };
  const committed = input.committed?.get(input.origin.partition) ?? null;
  if (committed === null || aboveLedger(input.origin.offset, committed))
    return { state: 'not-reached', committed };
  const { eventType, accepts, eventTenant, acceptsTenant } = input;
  // The pusher judges the tenant first (SubscriberTopology.takesTenant), so the ledger does too.
  if (eventTenant !== undefined && acceptsTenant != null && !acceptsTenant(eventTenant ?? undefined))
    return { state: 'filtered', at: null, tenant: eventTenant, committed };
  if (eventType != null && accepts != null && !accepts(eventType))
    return { state: 'filtered', at: null, eventType, committed };
  return { state: 'passed-without-record', committed };
}

/**
 * The ledger rule, stated once for `ledger` and `reconcile`: a record at or above its group's
 * committed offset on its partition (or with no committed offset) is not settled yet; below
 * it, it is (delivered, or its copy durable in a tier or the DLQ, or filtered).
 */
export function aboveLedger(offset: string | bigint, committed: string | bigint | null): boolean {
  return committed === null || BigInt(offset) >= BigInt(committed);
}

/** Attempt log records of one event (key = event id); records that do not parse are skipped. */
export function attemptEntriesFor(
  eventId: string,
  records: readonly Pick<StoredRecord, 'key' | 'value'>[],
): AttemptLogEntry[] {
  const out: AttemptLogEntry[] = [];
  for (const r of records) {
    if (!attemptRecordMayHold(r, eventId)) continue;
    for (const entry of attemptEntriesOf(r.value).entries) if (entry.eventId === eventId) out.push(entry);
  }
  return out;
}

/** Where the event sits in the events topic, as the attempt log recorded it (the first origin seen). */
export function originFromEntries(entries: readonly AttemptLogEntry[]): RecordLocation | null {
  return entries.find((e) => e.origin !== undefined)?.origin ?? null;
}

/** Subscriber names from consumer group ids (`hookstream.sub.<name>`), skipping anything else. */
export function subscribersFromGroups(groupIds: readonly string[]): string[] {
  return groupIds
    .filter((g) => g.startsWith(SUBSCRIBER_GROUP_PREFIX))
    .map((g) => g.slice(SUBSCRIBER_GROUP_PREFIX.length))
    .filter((name) => SubscriberName.safeParse(name).success);
}

/** Every subscriber's line: one per subscriber known from groups or the attempt log, sorted by name. */
export function resolveLedgers(input: {
  readonly subscribers: readonly string[];
  readonly entries: readonly AttemptLogEntry[];
  readonly origin: RecordLocation | null;
  readonly committed: ReadonlyMap<string, Committed | null>;
  /** The event's ce_type, when known. */
  readonly eventType?: string | null | undefined;
  /** Type filters of the subscribers the catalog defines, by name. */
  readonly filters?: ReadonlyMap<string, TypeFilter> | undefined;
  /** The event's ce_tenant: null when it has none, absent when unknown. */
  readonly eventTenant?: string | null | undefined;
  /** Tenant filters of the subscribers of a tenant the catalog defines, by name. */
  readonly tenantFilters?: ReadonlyMap<string, TenantFilter> | undefined;
}): LedgerLine[] {
  const names = [...new Set([...input.subscribers, ...input.entries.map((e) => e.subscriber)])].sort();
  return names.map((subscriber) => {
    const entries = input.entries.filter((e) => e.subscriber === subscriber);
    const origin = originFromEntries(entries) ?? input.origin;
    return {
      subscriber,
      origin,
      ledger: resolveLedger({
        entries,
        origin,
        committed: input.committed.get(subscriber) ?? null,
        eventType: input.eventType,
        accepts: input.filters?.get(subscriber),
        eventTenant: input.eventTenant,
        acceptsTenant: input.tenantFilters?.get(subscriber),
      }),
    };
  });
}
