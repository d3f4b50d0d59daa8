import { CatalogError } from './errors.ts';

/** Where a rewind goes: a time, the log start, or an offset per partition. */
export type RewindTarget =
  | { readonly kind: 'time'; readonly atMs: number }
  | { readonly kind: 'earliest' }
  | { readonly kind: 'offsets'; readonly offsets: ReadonlyMap<number, number> };

/** What Kafka says of one partition of the events topic, read before the plan. */
export interface RewindReading {
  readonly partition: number;
  /** The log start (retention deleted everything below) and the end. */
  readonly low: number;
  readonly high: number;
  /** The subscriber's ledger there; null: it has none yet. */
  readonly committed: number | null;
  /** For a time target: the first offset at or after the time (the end when none is). */
  readonly atTime?: number;
  /** For a time target: the timestamp of the record at the log start, when there is one. */
  readonly lowTimestampMs?: number | null;
}

/** One partition's move. */
export interface PartitionRewind {
  readonly partition: number;
  /** The ledger there; null: none yet (the partition is not moved: it starts from its log start). */
  readonly from: number | null;
  readonly to: number;
  /** Records between the new ledger and the old one: what is sent again. */
  readonly resend: number;
  /**
   * Records of the wanted range that retention deleted already (offsets below the log start);
   * for a time target, `null` when it cannot be counted (the log start's record is newer than
   * the time, so some unknown number before it is gone).
   */
  readonly deleted: number | null;
}

export interface RewindPlan {
  readonly partitions: readonly PartitionRewind[];
  readonly resend: number;
  /** Whether part of the wanted range is gone (some partition deleted > 0, or unknown). */
  readonly rangeDeleted: boolean;
}

/**
 * Where each partition's ledger goes: never forward (a rewind re-delivers; it never skips what
 * was not delivered yet, so a partition whose ledger is before the target stays), never below
 * the log start (those records are gone; they are counted as deleted instead). Pure.
 */
export function planRewind(target: RewindTarget, readings: readonly RewindReading[]): RewindPlan {
  if (target.kind === 'offsets')
    for (const p of target.offsets.keys())
      if (!readings.some((r) => r.partition === p))
        throw new CatalogError('BAD_REWIND', `partition ${p} is not a partition of the events topic`, false);
  const partitions = readings.map((r): PartitionRewind => {
    const wanted = Math.min(r.high, wantedOffset(target, r));
    const from = r.committed;
    // No ledger there yet: the group starts that partition from its log start anyway, and a
    // commit would only move it forward past records never delivered. It stays as it is.
    if (from === null) return { partition: r.partition, from, to: r.low, resend: 0, deleted: 0 };
    const moved = Math.min(from, Math.max(r.low, wanted));
    return {
      partition: r.partition,
      from,
      to: moved,
      resend: Math.max(0, from - moved),
      deleted: deletedOf(target, r, wanted),
    };
  });
  return {
    partitions,
    resend: partitions.reduce((n, p) => n + p.resend, 0),
    rangeDeleted: partitions.some((p) => p.deleted === null || p.deleted > 0),
  };
}

function wantedOffset(target: RewindTarget, r: RewindReading): number {
  switch (target.kind) {
    case 'earliest':
      return r.low;
    case 'offsets':
      // Partitions not named keep their ledger (or start at the end when they have none).
      return target.offsets.get(r.partition) ?? r.committed ?? r.high;
    case 'time':
      return r.atTime ?? r.high;
  }
}

function deletedOf(target: RewindTarget, r: RewindReading, wanted: number): number | null {
  // `earliest` asks for what the topic keeps: nothing of that is gone.
  if (target.kind === 'earliest') return 0;
  if (target.kind === 'offsets') return Math.max(0, r.low - wanted);
  // The time falls before the oldest record kept: what came between is gone, uncounted.
  if (r.atTime === r.low && r.low > 0 && r.lowTimestampMs != null && r.lowTimestampMs > target.atMs)
    return null;
  return 0;
}

/** `<time>`, `earliest`, or `partition:offset,…`; a clear error otherwise. */
export function parseRewindTarget(text: string): RewindTarget {
  if (text === 'earliest') return { kind: 'earliest' };
  if (/^\d+:\d+(,\d+:\d+)*$/.test(text)) {
    const offsets = new Map<number, number>();
    for (const pair of text.split(',')) {
      const [p = '', o = ''] = pair.split(':');
      const partition = Number(p);
      const offset = Number(o);
      if (!Number.isSafeInteger(partition) || partition > 100_000 || !Number.isSafeInteger(offset))
        throw new CatalogError('BAD_REWIND', `--to: ${pair} is out of range`, false);
      if (offsets.has(partition))
        throw new CatalogError('BAD_REWIND', `--to: partition ${partition} twice`, false);
      offsets.set(partition, offset);
    }
    return { kind: 'offsets', offsets };
  }
  const atMs = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(atMs))
    throw new CatalogError(
      'BAD_REWIND',
      `--to: "${text}" is not a time (ISO 8601, e.g. 2026-12-03T10:00:00Z), "earliest", or partition:offset,…`,
      false,
    );
  if (atMs > Date.now()) throw new CatalogError('BAD_REWIND', `--to: ${text} is in the future`, false);
  return { kind: 'time', atMs };
}
