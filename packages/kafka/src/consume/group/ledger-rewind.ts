import type { ConsumedRecord, RewindMark } from '../consumed-record.ts';

/**
 * A rewind's mark on one partition's ledger (docs/architecture.md, "A rewind's mark"): the
 * operator's rewind moved the committed offset back from `untilOffset`, so every record below it
 * the group reads again is sent again because of that rewind. It lives in the commit's metadata,
 * and each commit below `untilOffset` carries it forward (`carriedRewind`), so a member that
 * joins mid-range still knows.
 */
export interface LedgerRewind {
  /** The committed offset before the rewind: records below it are re-deliveries. */
  readonly untilOffset: number;
  /** When the rewind was made (ms since epoch). */
  readonly atMs: number;
  /** Who made it (bounded, no ';': see rewinderName). */
  readonly by: string;
}

/**
 * The carry-forward rule: a commit at `offset` keeps the mark while the offset is still below
 * its `untilOffset` (records of the rewound range remain to be read), and drops it from there on.
 */
export function carriedRewind(rewind: LedgerRewind | null | undefined, offset: number): LedgerRewind | null {
  return rewind != null && offset < rewind.untilOffset ? rewind : null;
}

/** What a record of the rewound range carries to the handler. */
export function rewindMarkOf(rewind: LedgerRewind): RewindMark {
  return { atMs: rewind.atMs, by: rewind.by };
}

/**
 * The record as handed to the handler: marked when the rewind sent it again (its offset below
 * `untilOffset`), else the same object. Only records of a rewound range are copied, so records
 * outside one cost a comparison, not an allocation.
 */
export function markedRecord(
  record: ConsumedRecord,
  offset: number,
  rewind: LedgerRewind | null,
  mark: RewindMark | null,
): ConsumedRecord {
  if (rewind === null || mark === null || offset >= rewind.untilOffset) return record;
  return { ...record, rewound: mark };
}
