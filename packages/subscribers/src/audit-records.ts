import { createHash, randomUUID } from 'node:crypto';
import {
  type AuditAction,
  type AuditActor,
  type AuditDetail,
  type AuditDigest,
  AuditRecord,
  CE_HEADER,
  type SubscriberRecord,
} from '@hookstream/contracts';
import { encodeSubscriberRecord } from './catalog-records.ts';

/**
 * JSON with every object's keys sorted, so one record has one text whatever order its fields
 * were built in. Undefined fields are left out, as JSON.stringify does. Pure.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/**
 * The digest of a catalog record as stored: its encoded form read back (so the digest taken of
 * a record being written equals the one taken when it is next read, and one record's `after`
 * is the next change's `before`), in canonical JSON. The record holds sealed secrets only, and a
 * digest reveals nothing of them. Null for no record. Pure.
 */
export function recordDigest(record: SubscriberRecord | null | undefined): AuditDigest | null {
  if (record === null || record === undefined) return null;
  const stored: unknown = JSON.parse(encodeSubscriberRecord(record).toString('utf8'));
  return `sha256:${createHash('sha256').update(canonicalJson(stored), 'utf8').digest('hex')}`;
}

/** Where a change's audit records go (AuditTrail in production) and whose hand made it. */
export interface AuditContext {
  readonly trail: { write(records: readonly AuditRecord[]): Promise<void> };
  readonly actor: AuditActor;
}

/** One change, as a command or component saw it. */
export interface AuditChange {
  readonly actor: AuditActor;
  readonly action: AuditAction;
  readonly subscriber: string;
  /** The record before the change (undefined/null: none). */
  readonly before: SubscriberRecord | null | undefined;
  /** The record after it (undefined/null: none). */
  readonly after: SubscriberRecord | null | undefined;
  /** The tenant when neither record tells (a replay, which reads no catalog record). */
  readonly tenant?: string | undefined;
  readonly detail?: AuditDetail | undefined;
  readonly now: Date;
  /** Tests give one; a uuid otherwise. */
  readonly id?: string;
}

/**
 * The audit record of a change: digests of both sides, the subscriber's tenant from either
 * record. Validated against the contract, so a bad one fails here, before anything is sent.
 */
export function auditRecordOf(change: AuditChange): AuditRecord {
  const tenant = change.after?.definition.tenant ?? change.before?.definition.tenant ?? change.tenant;
  return AuditRecord.parse({
    version: 1,
    id: change.id ?? randomUUID(),
    at: change.now.toISOString(),
    actor: change.actor,
    action: change.action,
    subscriber: change.subscriber,
    ...(tenant === undefined ? {} : { tenant }),
    before: recordDigest(change.before),
    after: recordDigest(change.after),
    ...(change.detail === undefined ? {} : { detail: change.detail }),
  });
}

/** The Kafka record: keyed by subscriber, `ce_tenant` when it has one (filtered before decoding). */
export function encodeAuditRecord(record: AuditRecord): {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
} {
  return {
    key: record.subscriber,
    value: Buffer.from(JSON.stringify(record), 'utf8'),
    headers: record.tenant === undefined ? {} : { [CE_HEADER.tenant]: record.tenant },
  };
}

/**
 * The audit records of an apply: one per record written, created when the name had no record,
 * updated otherwise, in the order written. Pure.
 */
export function applyAuditRecords(
  before: ReadonlyMap<string, SubscriberRecord>,
  written: readonly SubscriberRecord[],
  actor: AuditActor,
  now: Date,
): AuditRecord[] {
  return written.map((after) => {
    const name = after.definition.name;
    const was = before.get(name);
    return auditRecordOf({
      actor,
      action: was === undefined ? 'subscriber.created' : 'subscriber.updated',
      subscriber: name,
      before: was,
      after,
      now,
    });
  });
}

/** What an audit record keeps of a replay's summary (ReplaySummary of @hookstream/replay). */
export interface ReplayCounts {
  readonly replayId: string;
  readonly selected: number;
  readonly replayed: readonly unknown[];
  readonly alreadyReplayed: readonly unknown[];
  readonly unreplayable: readonly unknown[];
}

/**
 * The audit record of a replay that wrote something: counts, not the events (the replay log
 * names each), and who the replay says replayed (`--operator`, the console's operator). Pure.
 */
export function replayAuditRecord(
  summary: ReplayCounts & { readonly subscriber: string },
  context: {
    readonly actor: AuditActor;
    readonly operator: string;
    readonly again: boolean;
    readonly tenant?: string | undefined;
    readonly now: Date;
  },
): AuditRecord {
  return auditRecordOf({
    actor: context.actor,
    action: 'dead_letters.replayed',
    subscriber: summary.subscriber,
    before: null,
    after: null,
    tenant: context.tenant,
    detail: {
      replayId: summary.replayId.slice(0, 200),
      operator: context.operator.slice(0, 200),
      again: context.again,
      selected: summary.selected,
      replayed: summary.replayed.length,
      alreadyReplayed: summary.alreadyReplayed.length,
      unreplayable: summary.unreplayable.length,
    },
    now: context.now,
  });
}
