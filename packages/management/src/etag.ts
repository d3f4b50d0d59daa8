import type { SubscriberRecord } from '@hookstream/contracts';
import { recordDigest } from '@hookstream/subscribers';
import { ManagementError } from './errors.ts';

/** A strong ETag of the record in effect: the audit trail's digest of it (the stored form). */
export function etagOf(record: SubscriberRecord): string {
  return `"${(recordDigest(record) ?? '').slice('sha256:'.length)}"`;
}

/**
 * Whether an If-Match header holds for the record in effect (RFC 9110: strong comparison, `*`
 * for any record, a list of tags; none: always). Pure.
 */
export function ifMatchHolds(ifMatch: string | undefined, current: SubscriberRecord | undefined): boolean {
  if (ifMatch === undefined) return true;
  if (current === undefined) return false;
  const tags = ifMatch.split(',').map((t) => t.trim());
  if (tags.includes('*')) return true;
  const etag = etagOf(current);
  return tags.some((t) => t === etag);
}

/**
 * Makes a change that the caller made conditional with If-Match (PUT, DELETE). The one place the
 * condition is decided: today it checks and then writes, so two writers with the same If-Match can
 * both pass the check (the race is not closed yet). With catalog revisions (a conditional write
 * failing with REVISION_MISMATCH), this becomes that write, mapping the mismatch to 412.
 */
export async function changeIfMatch<T>(
  ifMatch: string | undefined,
  current: SubscriberRecord | undefined,
  change: () => Promise<T>,
): Promise<T> {
  if (!ifMatchHolds(ifMatch, current))
    throw new ManagementError(
      'precondition_failed',
      'If-Match does not name the subscriber as it is now: read it again (GET) and decide again',
    );
  return change();
}
