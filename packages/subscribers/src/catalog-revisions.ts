/**
 * Catalog revisions: the compare-and-set rule every reader of the catalog topic folds by.
 *
 * A subscriber's revision is the Kafka offset of the write that set its record in effect (the
 * topic has one partition, so offsets are a total order, and compaction never renumbers them).
 * A conditional write names the revision it expects in a header; a reader applies it only when
 * the key's revision at that point of the log is the expected one, else ignores it (a lost
 * race). Records without the header (every older writer) always apply, as before.
 */

/** The revision a write expects: an offset (decimal), or `absent` for create-only (If-None-Match: *). */
export const IF_REVISION_HEADER = 'hookstream-if-revision';
/**
 * On a conditional record that restates what is in effect (a loser's repair): applied like any
 * conditional record, it leaves the key's revision as it was, so the winner's ETag stays valid.
 */
export const RESTATES_HEADER = 'hookstream-restates';

/** What a conditional write expects: the key's revision, or no record in effect. */
export type ExpectedRevision = string | 'absent';

/** What a key holds at a point of the log; a key never seen has no state. */
export type KeyState =
  | { readonly kind: 'record'; readonly revision: string; readonly at: string }
  | { readonly kind: 'deleted'; readonly at: string };

/** How a record asks to be applied. */
export type WriteCondition =
  | { readonly kind: 'always' }
  | { readonly kind: 'if'; readonly expected: ExpectedRevision; readonly restates: boolean }
  | { readonly kind: 'bad'; readonly error: string };

const OFFSET = /^(0|[1-9][0-9]{0,18})$/;

/** Whether text is a revision (a Kafka offset as a decimal string, at most 19 digits). */
export function isRevision(text: string): boolean {
  return OFFSET.test(text);
}

/** The headers a conditional write carries. */
export function conditionHeaders(expected: ExpectedRevision, restates = false): Record<string, string> {
  return { [IF_REVISION_HEADER]: expected, ...(restates ? { [RESTATES_HEADER]: 'true' } : {}) };
}

/**
 * The record's condition, from its headers and its own offset. An expected revision that is not
 * an offset below the record's own cannot have been read by its writer: the record is bad.
 */
export function conditionOf(
  headers: Readonly<Record<string, string>> | undefined,
  offset: string | undefined,
): WriteCondition {
  const expected = headers?.[IF_REVISION_HEADER];
  if (expected === undefined) return { kind: 'always' };
  const restates = headers?.[RESTATES_HEADER] === 'true';
  if (offset === undefined) return { kind: 'bad', error: 'a conditional record without an offset' };
  if (expected === 'absent') return { kind: 'if', expected, restates };
  if (!isRevision(expected) || BigInt(expected) >= BigInt(offset))
    return { kind: 'bad', error: `${IF_REVISION_HEADER} "${expected}" is not an earlier offset` };
  return { kind: 'if', expected, restates };
}

/**
 * Whether a conditional record applies to a key in this state. A key with no state at all
 * (never seen, or every record of it compacted away) takes a record that expects an offset:
 * its expected record can only have gone by compaction after a loser's unrepaired write, and
 * applying it keeps the subscriber rather than losing it.
 */
export function admits(state: KeyState | undefined, expected: ExpectedRevision): boolean {
  if (state === undefined) return true;
  if (state.kind === 'deleted') return expected === 'absent';
  return expected === state.revision;
}

/** The key's state once an admitted record at `offset` applied. */
export function nextState(
  condition: WriteCondition,
  offset: string,
  deletes: boolean,
  before: KeyState | undefined,
): KeyState {
  if (deletes) return { kind: 'deleted', at: offset };
  if (condition.kind === 'if' && condition.restates) {
    const revision = before?.kind === 'record' ? before.revision : condition.expected;
    if (revision !== 'absent') return { kind: 'record', revision, at: offset };
  }
  return { kind: 'record', revision: offset, at: offset };
}
