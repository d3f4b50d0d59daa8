import { type CatalogFold, foldCatalog, type RawRegistryRecord } from './catalog-records.ts';
import { conditionHeaders, type ExpectedRevision, type KeyState } from './catalog-revisions.ts';
import { CatalogError } from './errors.ts';
import { RevisionMismatchError } from './revision-mismatch.ts';

/** One record for the catalog topic. */
export interface CatalogWrite {
  readonly key: string;
  readonly value: Buffer | null;
  readonly headers: Record<string, string>;
}

/** The catalog topic as a conditional write needs it. */
export interface RevisionLog {
  /**
   * Every record of the topic, each with its logOffset and headers; with `through`, at least up
   * to that offset (one this process wrote).
   */
  readRecords(through?: string): Promise<RawRegistryRecord[]>;
  /** Writes the records in one batch (acks=all); the offset of the last one. */
  send(records: readonly CatalogWrite[]): Promise<string>;
}

/** How often a loser restates the record in effect before it gives up (each try is one read). */
const REPAIR_TRIES = 3;

/**
 * Writes `write` (a subscriber record or a tombstone, keyed by name) if the key's revision is
 * `expected`; returns the key's state with the write in effect. A stale expectation is refused
 * before anything is written (RevisionMismatchError). Otherwise the record goes out with the
 * condition header, and the log is read back up to it: folded by the same rule as every reader,
 * either it is in effect (won), or it lost a race to a write that landed first. A loser repairs
 * (restates what is in effect, see `repair`) and throws RevisionMismatchError.
 */
export async function writeIfRevision(
  log: RevisionLog,
  write: CatalogWrite,
  expected: ExpectedRevision,
  before: readonly CatalogWrite[] = [],
): Promise<KeyState> {
  const name = write.key;
  const now = foldKey(await log.readRecords(), name).states.get(name);
  // Stricter than the fold, which lets a compacted-away key take an expected offset: a writer
  // that sees no record in effect does not hold the revision it names.
  const holds = expected === 'absent' ? now?.kind !== 'record' : revisionOf(now) === expected;
  if (!holds) throw new RevisionMismatchError(name, expected, revisionOf(now));
  const offset = await log.send([
    ...before,
    { ...write, headers: { ...write.headers, ...conditionHeaders(expected) } },
  ]);
  const records = await log.readRecords(offset);
  const upTo = foldKey(
    records.filter((r) => r.logOffset !== undefined && BigInt(r.logOffset) <= BigInt(offset)),
    name,
  );
  const lost = upTo.snapshot.lost.find((l) => l.offset === offset);
  if (lost !== undefined) {
    const after = await repair(log, name, records);
    throw new RevisionMismatchError(name, expected, revisionOf(after.states.get(name)));
  }
  const state = upTo.states.get(name);
  if (state === undefined || state.at !== offset)
    throw new CatalogError(
      'WRITE_UNCONFIRMED',
      `subscriber ${name}: the write at offset ${offset} is not in effect when read back (read the catalog again)`,
      true,
    );
  return state;
}

/**
 * The fold of one key's records: a key's revision state and its lost writes depend on its own
 * records only, so the other keys' (thousands, in a catalog not compacted yet) are not parsed.
 */
function foldKey(records: readonly RawRegistryRecord[], name: string): CatalogFold {
  return foldCatalog(records.filter((r) => r.key === name));
}

function revisionOf(state: KeyState | undefined): string | null {
  return state?.kind === 'record' ? state.revision : null;
}

/**
 * Compaction keeps only the latest record of a key, so a losing record that is the latest would
 * outlive the winner's, and readers would then take it (catalog-revisions.ts `admits`). While the
 * key's latest record is one that lost, this writes the state in effect again: the record in
 * effect's bytes (or a tombstone), conditional on its revision and restating it (the revision
 * stays, so the winner's ETag holds). Conditional, so a repair that races a newer write loses too
 * and is repaired in turn. Older readers (last write wins) see the same content again.
 */
async function repair(log: RevisionLog, name: string, first: RawRegistryRecord[]): Promise<CatalogFold> {
  let records = first;
  for (let tries = 0; ; tries++) {
    const fold = foldKey(records, name);
    const latest = records.findLast((r) => r.key === name && r.logOffset !== undefined);
    const lostLatest = fold.snapshot.lost.some((l) => l.key === name && l.offset === latest?.logOffset);
    if (!lostLatest || tries >= REPAIR_TRIES) return fold;
    const state = fold.states.get(name);
    if (state?.kind === 'record') {
      const bytes = records.find((r) => r.logOffset === state.at)?.value ?? null;
      if (bytes === null) return fold;
      records = await log.readRecords(
        await log.send([{ key: name, value: bytes, headers: conditionHeaders(state.revision, true) }]),
      );
    } else
      records = await log.readRecords(
        await log.send([{ key: name, value: null, headers: conditionHeaders('absent', true) }]),
      );
  }
}
