import { ManagementError } from './errors.ts';

/**
 * A subscriber's strong ETag: its catalog revision (the offset of the write in effect, see
 * docs/architecture.md "Catalog revisions"), quoted.
 */
export function etagOf(revision: string): string {
  return `"${revision}"`;
}

/**
 * What a write must find in effect, from If-Match (RFC 9110: strong comparison, `*` for any
 * record, a list of tags) and the revision read just before: the revision to write on
 * (conditional, so a write in between loses with 412), or 412 at once when no tag names the
 * record as it is. Without If-Match: the revision read (or `absent`), and `retry` says that a
 * lost race may be tried again (last writer wins, as for an unconditional PUT).
 */
export function expectedRevision(
  ifMatch: string | undefined,
  current: string | undefined,
): { readonly expected: string | 'absent'; readonly retry: boolean } {
  if (ifMatch === undefined) return { expected: current ?? 'absent', retry: true };
  // Quoted as RFC 9110 writes them, or bare: the revision is what counts.
  const tags = ifMatch.split(',').map((t) => t.trim().replace(/^"(.*)"$/, '$1'));
  if (current !== undefined && (tags.includes('*') || tags.includes(current)))
    return { expected: current, retry: false };
  throw preconditionFailed();
}

export function preconditionFailed(): ManagementError {
  return new ManagementError(
    'precondition_failed',
    'If-Match does not name the subscriber as it is now: read it again (GET) and decide again',
  );
}
