import { AuditRecord, CE_HEADER } from '@hookstream/contracts';

/** Which audit records a reader wants; every given field must hold. */
export interface AuditSelection {
  readonly subscriber?: string | undefined;
  /** Only this tenant's subscribers' records (a tenant's reader: its own only). */
  readonly tenant?: string | undefined;
  /** Only changes at or after this time (ms since epoch). */
  readonly sinceMs?: number | undefined;
}

/** An audit topic record as read: key, value, headers (tests build these by hand). */
export interface RawAuditRecord {
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
  /** Where it was ("partition:offset"), for reports. */
  readonly offset?: string;
}

/** A record of the topic that is not an audit record this code reads. */
export interface AuditProblem {
  readonly offset: string | null;
  readonly error: string;
}

/**
 * Whether a record may be one the selection wants, from its key and headers alone: a reader
 * skips others' subscribers and tenants without decoding them. Pure.
 */
export function mayBeSelected(raw: RawAuditRecord, selection: AuditSelection): boolean {
  if (selection.subscriber !== undefined && raw.key !== selection.subscriber) return false;
  if (selection.tenant !== undefined && raw.headers[CE_HEADER.tenant] !== selection.tenant) return false;
  return true;
}

/**
 * The selected audit records, in the topic's order (one partition: the order of the changes),
 * and the records that could not be read. The decoded record must agree with its key and header:
 * a record whose body names another subscriber or tenant than its key or `ce_tenant` is a problem,
 * never shown to a reader filtering by them. Pure.
 */
export function selectAuditRecords(
  raws: Iterable<RawAuditRecord>,
  selection: AuditSelection,
): { records: AuditRecord[]; problems: AuditProblem[] } {
  const records: AuditRecord[] = [];
  const problems: AuditProblem[] = [];
  for (const raw of raws) {
    if (!mayBeSelected(raw, selection)) continue;
    const offset = raw.offset ?? null;
    if (raw.value === null) {
      problems.push({ offset, error: 'a record without a value' });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.value.toString('utf8'));
    } catch (err) {
      problems.push({ offset, error: `not JSON: ${(err as Error).message}` });
      continue;
    }
    const parsed = AuditRecord.safeParse(json);
    if (!parsed.success) {
      problems.push({ offset, error: parsed.error.issues[0]?.message ?? 'not an audit record' });
      continue;
    }
    const record = parsed.data;
    if (record.subscriber !== raw.key || record.tenant !== raw.headers[CE_HEADER.tenant]) {
      problems.push({ offset, error: 'its subscriber or tenant differs from its key or ce_tenant' });
      continue;
    }
    if (selection.sinceMs !== undefined && Date.parse(record.at) < selection.sinceMs) continue;
    records.push(record);
  }
  return { records, problems };
}
