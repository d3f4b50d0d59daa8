import type { AuditDigest, AuditRecord } from '@hookstream/contracts';

/** Where one subscriber's chain of digests breaks: a change of its record that the trail lacks. */
export interface AuditChainBreak {
  readonly subscriber: string;
  /** The record whose `before` is not the previous record's `after`. */
  readonly id: string;
  readonly action: AuditRecord['action'];
  readonly expected: AuditDigest | null;
  readonly found: AuditDigest | null;
}

/**
 * Walks each subscriber's records in trail order: one change's `after` must be the next one's
 * `before`. Records about no catalog record (a replay: both null) stand outside the chain. Pure.
 */
export function auditChainBreaks(records: readonly AuditRecord[]): AuditChainBreak[] {
  const last = new Map<string, AuditDigest | null>();
  const breaks: AuditChainBreak[] = [];
  for (const r of records) {
    if (r.before === null && r.after === null) continue;
    const expected = last.get(r.subscriber);
    if (expected !== undefined && expected !== r.before)
      breaks.push({ subscriber: r.subscriber, id: r.id, action: r.action, expected, found: r.before });
    last.set(r.subscriber, r.after);
  }
  return breaks;
}
