/**
 * Retention headroom, pure: how long until retention reaches the oldest record a subscriber still
 * owes on one partition (docs/operations.md, "Retention headroom"). No I/O here; the reader
 * (headroom-reader.ts) gathers the figures.
 */

/** A topic's deletion limits; null: that limit does not apply (unset, -1, or a compact-only topic). */
export interface TopicRetention {
  readonly retentionMs: number | null;
  /** Per partition, as Kafka applies it. */
  readonly retentionBytes: number | null;
}

/** What is known of one partition: the ledger, the end, the record at the ledger, the last hour. */
export interface PartitionFigures {
  /** The ledger: the first record not settled. */
  readonly committed: number;
  /** The end offset (high watermark). */
  readonly end: number;
  /** Kafka timestamp (ms) of the record at the ledger; null when nothing is owed (ledger at the end). */
  readonly recordTimestampMs: number | null;
  /** Mean bytes per record in the log near the ledger; null: none was read. */
  readonly bytesPerRecord: number | null;
  /** Records appended in the last hour; null: not asked (no retention.bytes). */
  readonly recordsLastHour: number | null;
}

export type HeadroomBasis = 'time' | 'bytes';

export type Headroom =
  | { readonly kind: 'bounded'; readonly seconds: number; readonly basis: HeadroomBasis }
  | { readonly kind: 'unbounded' };

/** Kafka's "no limit". */
const UNLIMITED = -1;
const HOUR_S = 3600;

/** Reads retention.ms, retention.bytes and cleanup.policy as the broker reports them. */
export function topicRetention(config: Readonly<Record<string, string | undefined>>): TopicRetention {
  // A compact-only topic deletes nothing by age or size (its old values go by key instead).
  const policy = (config['cleanup.policy'] ?? 'delete').split(',').map((p) => p.trim());
  if (!policy.includes('delete')) return { retentionMs: null, retentionBytes: null };
  return { retentionMs: limit(config['retention.ms']), retentionBytes: limit(config['retention.bytes']) };
}

function limit(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  // Bounded: anything not a positive safe integer (-1, garbage, beyond 2^53) is no limit we can use.
  if (!Number.isSafeInteger(n) || n === UNLIMITED || n <= 0) return null;
  return n;
}

/**
 * The time until retention reaches the record at the ledger. By time: its timestamp plus
 * retention.ms (Kafka deletes a segment once its newest record is that old, so the record lives
 * at least this long). By size: the room retention.bytes leaves above the bytes from the ledger
 * to the end, at the ingest rate of the last hour (no ingest: size never reaches it). Whichever
 * comes first; neither limit: unbounded. Nothing owed (the ledger at the end): the next record's
 * headroom, a whole retention.
 */
export function retentionHeadroom(
  retention: TopicRetention,
  figures: PartitionFigures,
  nowMs: number,
): Headroom {
  const candidates: { seconds: number; basis: HeadroomBasis }[] = [];
  if (retention.retentionMs !== null) {
    const at = figures.recordTimestampMs ?? nowMs;
    candidates.push({ seconds: Math.max(0, (at + retention.retentionMs - nowMs) / 1000), basis: 'time' });
  }
  if (
    retention.retentionBytes !== null &&
    figures.bytesPerRecord !== null &&
    figures.recordsLastHour !== null
  ) {
    const owed = Math.max(0, figures.end - figures.committed);
    const room = retention.retentionBytes - owed * figures.bytesPerRecord;
    const bytesPerSecond = (figures.recordsLastHour * figures.bytesPerRecord) / HOUR_S;
    if (room <= 0) candidates.push({ seconds: 0, basis: 'bytes' });
    else if (bytesPerSecond > 0) candidates.push({ seconds: room / bytesPerSecond, basis: 'bytes' });
  }
  let best: { seconds: number; basis: HeadroomBasis } | undefined;
  for (const c of candidates) if (best === undefined || c.seconds < best.seconds) best = c;
  return best === undefined
    ? { kind: 'unbounded' }
    : { kind: 'bounded', seconds: Math.floor(best.seconds), basis: best.basis };
}

/** The least headroom of several partitions (a subscriber's, for `list`); null: none measured. */
export function leastHeadroom(all: Iterable<Headroom | null>): Headroom | null {
  let least: Headroom | null = null;
  for (const h of all) {
    if (h === null) continue;
    if (least === null || least.kind === 'unbounded' || (h.kind === 'bounded' && h.seconds < least.seconds))
      least = h;
  }
  return least;
}

/** As `--json` gives it: seconds, or "unbounded"; null: not measured. */
export function headroomSeconds(h: Headroom | null): number | 'unbounded' | null {
  if (h === null) return null;
  return h.kind === 'unbounded' ? 'unbounded' : h.seconds;
}

/** As a table cell: `3h12m`, `41s`, `unbounded`, or `-`; `(bytes)` when retention.bytes came first. */
export function formatHeadroom(h: Headroom | null): string {
  if (h === null) return '-';
  if (h.kind === 'unbounded') return 'unbounded';
  return `${formatSeconds(h.seconds)}${h.basis === 'bytes' ? ' (bytes, 1h rate)' : ''}`;
}

/** A figure as `--json` gives it (`headroomSeconds`), as a table cell; `-` when not measured. */
export function formatHeadroomCell(
  seconds: number | 'unbounded' | null,
  basis: HeadroomBasis | null,
): string {
  if (seconds === null) return '-';
  if (seconds === 'unbounded') return formatHeadroom({ kind: 'unbounded' });
  return formatHeadroom({ kind: 'bounded', seconds, basis: basis ?? 'time' });
}

function formatSeconds(total: number): string {
  const s = Math.max(0, Math.floor(total));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d}d${h}h`;
  if (h > 0) return `${h}h${m}m`;
  if (m > 0) return `${m}m${s % 60}s`;
  return `${s}s`;
}

/** Where a crossing is: one partition of one subscriber's topic. */
export interface HeadroomPlace {
  readonly subscriber: string;
  readonly topic: string;
  readonly partition: number;
}

/**
 * Remembers which partitions are below their subscriber's warning threshold, so a notice goes
 * out once per crossing: at the first look below it, and again only after a look at or above it
 * (recovered) and a later one below. The crossing is known by the ledger offset it concerns,
 * which every instance reads from the same group, so instances name it alike.
 */
export class HeadroomCrossings {
  readonly #below = new Map<string, number>();

  /**
   * One look; returns the offset of a new crossing (a notice is due), or null. `belowThreshold`
   * false forgets the partition: it recovered.
   */
  look(place: HeadroomPlace, offset: number, belowThreshold: boolean): number | null {
    const key = placeKey(place);
    if (!belowThreshold) {
      this.#below.delete(key);
      return null;
    }
    if (this.#below.has(key)) return null;
    this.#below.set(key, offset);
    return offset;
  }

  /** A notice that could not be sent: the next look counts as the crossing again. */
  unsent(place: HeadroomPlace): void {
    this.#below.delete(placeKey(place));
  }

  /** Forgets every partition of subscribers no longer watched. */
  keepOnly(subscribers: ReadonlySet<string>): void {
    for (const key of this.#below.keys())
      if (!subscribers.has(key.slice(0, key.indexOf('\u0000')))) this.#below.delete(key);
  }
}

function placeKey(p: HeadroomPlace): string {
  return `${p.subscriber}\u0000${p.topic}\u0000${p.partition}`;
}

/** The notice id of one crossing: every instance that sees it names it so (docs/security.md). */
export function retentionNoticeId(place: HeadroomPlace, offset: number): string {
  return `subscriber.retention_at_risk:${place.subscriber}:${place.topic}:${place.partition}:${offset}`;
}
