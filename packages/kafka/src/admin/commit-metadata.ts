import type { LedgerRewind } from '../consume/group/ledger-rewind.ts';

/**
 * The metadata string hookstream writes with each partition of a ledger commit (Kafka keeps one
 * per committed offset): `key=value` pairs joined by `;`, in this order:
 *
 * - `committedAt` (every commit): when; a gap found later says when the ledger last moved.
 * - `openSince` (the pusher's commits): no copy of a record above the offset is older, so a join
 *   looks for copies from there (docs/architecture.md, "One chain per event").
 * - `rewoundUntil`, `rewoundAt`, `rewoundBy` (a rewind's commit, and the pusher's commits while
 *   below `rewoundUntil`): the records below that offset are sent again by that rewind
 *   (docs/architecture.md, "A rewind's mark").
 *
 * Reading is lenient: unknown keys are ignored and a value that does not parse reads as absent,
 * so metadata another client left is harmless. Pushers before the rewind mark read
 * `committedAt[;openSince]` with an anchored pattern: a commit that also carries a rewind reads as
 * neither time to them.
 */

/**
 * Who made a rewind, as written: at most this many characters. Kafka's default
 * `offset.metadata.max.bytes` is 4096; the whole metadata stays under 600 bytes.
 */
export const REWINDER_MAX_CHARS = 100;
/** Metadata longer than this is not hookstream's: read as saying nothing. */
const METADATA_MAX_CHARS = 1024;
/** An RFC 3339 time as written here is 24 characters; a little room for others' forms. */
const TIME_MAX_CHARS = 40;

/** What a commit's metadata says; null (or absent when writing) where it does not. */
export interface CommitFacts {
  readonly committedAtMs: number | null;
  readonly openSinceMs: number | null;
  readonly rewind: LedgerRewind | null;
}

/** The metadata of a commit made at `atMs`, with the facts given (see above). */
export function encodeCommitMetadata(
  atMs: number,
  facts: { readonly openSinceMs?: number | null; readonly rewind?: LedgerRewind | null } = {},
): string {
  let text = `committedAt=${iso(atMs)}`;
  if (facts.openSinceMs != null) text += `;openSince=${iso(facts.openSinceMs)}`;
  const rewind = facts.rewind;
  if (rewind != null)
    text += `;rewoundUntil=${rewind.untilOffset};rewoundAt=${iso(rewind.atMs)};rewoundBy=${rewinderName(rewind.by)}`;
  return text;
}

/** The facts of a commit's metadata: what hookstream wrote (any version); nothing from others. */
export function decodeCommitMetadata(metadata: string | null | undefined): CommitFacts {
  const none: CommitFacts = { committedAtMs: null, openSinceMs: null, rewind: null };
  if (metadata == null || metadata.length === 0 || metadata.length > METADATA_MAX_CHARS) return none;
  const fields = new Map<string, string>();
  for (const part of metadata.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq);
    // The first of a repeated key counts: a later one cannot override what a reader saw first.
    if (!fields.has(key)) fields.set(key, part.slice(eq + 1));
  }
  const until = offsetOf(fields.get('rewoundUntil'));
  const rewoundAt = timeOf(fields.get('rewoundAt'));
  const by = fields.get('rewoundBy');
  const validBy = by !== undefined && by.length > 0 && by.length <= REWINDER_MAX_CHARS * 2;
  return {
    committedAtMs: timeOf(fields.get('committedAt')),
    openSinceMs: timeOf(fields.get('openSince')),
    // All three or none: a partial mark says nothing a reader could act on.
    rewind:
      until !== null && rewoundAt !== null && validBy ? { untilOffset: until, atMs: rewoundAt, by } : null,
  };
}

/**
 * Who rewound, as the metadata can hold it: no `;` (the separator) and no control characters
 * (both become `_`), at most REWINDER_MAX_CHARS characters, never empty.
 */
export function rewinderName(by: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
  const clean = Array.from(by.replace(/[;\u0000-\u001f\u007f]/g, '_'))
    .slice(0, REWINDER_MAX_CHARS)
    .join('');
  return clean.length === 0 ? 'unknown' : clean;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function timeOf(text: string | undefined): number | null {
  if (text === undefined || text.length > TIME_MAX_CHARS) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

function offsetOf(text: string | undefined): number | null {
  if (text === undefined || !/^\d{1,16}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}
