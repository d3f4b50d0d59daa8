import {
  DeadLetterReason,
  EventSelection,
  evaluateFilter,
  filterNeedsData,
  formatLocation,
  HS_HEADER,
  RecordLocation,
  readHsHeaders,
  type SubscriberDefinition,
} from '@hookstream/contracts';
import { z } from 'zod';
import { aboveLedger } from './ledger.ts';
import type { StoredRecord } from './stored-record.ts';

// `hookstream reconcile`: for each event of a window and each required subscriber that owes it,
// what became of it. The bulk, streaming form of `hookstream ledger`: the same ledger rule
// (aboveLedger), judged from durable evidence only (docs/operations.md, "Required consumers and
// reconciliation").

/** What became of one obligation (or, `filtered`, why there is none). */
export const ReconcileState = z.enum([
  'delivered',
  'filtered',
  'pending',
  'retrying',
  'dead-lettered',
  'replayed',
  'lost',
]);
export type ReconcileState = z.infer<typeof ReconcileState>;

/** States whose obligations are listed by id (the first few of each). */
export const LISTED_STATES: readonly ReconcileState[] = [
  'pending',
  'retrying',
  'dead-lettered',
  'replayed',
  'lost',
];

/** States that make reconcile exit 1: nothing will deliver them without someone acting. */
export const BROKEN_STATES: readonly ReconcileState[] = ['dead-lettered', 'lost'];

/** A required subscriber as reconcile holds it to its obligations. */
export interface RequiredSubscriber {
  readonly name: string;
  /** Whether its definition takes an event of this type and tenant (`ce_tenant`; undefined: none). */
  readonly takes: (type: string, tenant: string | undefined) => boolean;
  /**
   * Its filter's verdict on the event's attributes (its `ce_` headers); true without a filter.
   * A filter on the data is not judged here (reconcile reads no values): the events it refuses
   * are settled below the ledger and count as delivered.
   */
  readonly admits: (headers: Readonly<Record<string, string>>) => boolean;
  /** Whether `admits` reads headers beyond ce_id, ce_type and ce_tenant. */
  readonly filtersAttributes: boolean;
  /** Events with a Kafka timestamp before this are not owed (requiredFrom, start). */
  readonly owedFromMs: number;
}

/**
 * When a required subscriber's obligations begin: at `requiredFrom`, and not before its start
 * position (a time; `latest`: its first start on the events topic, when it has started; before
 * that everything from `requiredFrom` is owed and waits). Null when it is not required.
 */
export function owedFromMs(
  definition: Pick<SubscriberDefinition, 'required' | 'requiredFrom' | 'start'>,
  firstStartedAt: string | null,
): number | null {
  if (definition.required !== true) return null;
  const required = definition.requiredFrom === undefined ? -Infinity : Date.parse(definition.requiredFrom);
  const { start } = definition;
  const started =
    start === 'earliest'
      ? -Infinity
      : start === 'latest'
        ? firstStartedAt === null
          ? -Infinity
          : Date.parse(firstStartedAt)
        : Date.parse(start);
  return Math.max(required, started);
}

export function requiredSubscriber(
  definition: SubscriberDefinition,
  firstStartedAt: string | null,
): RequiredSubscriber | null {
  const from = owedFromMs(definition, firstStartedAt);
  if (from === null) return null;
  const filter = definition.filter;
  const attributesOnly = filter !== undefined && !filterNeedsData(filter);
  const selection = EventSelection.of(definition);
  return {
    name: definition.name,
    takes: (type, tenant) => selection.takesTenant(tenant) && selection.takesType(type),
    admits: (headers) => !attributesOnly || filter === undefined || evaluateFilter(filter, { headers }).pass,
    filtersAttributes: attributesOnly,
    owedFromMs: from,
  };
}

/**
 * Whether the subscriber owes the event: `filtered` when its definition does not take its type or
 * its tenant (a tenant's subscriber owes nothing of other tenants, nor events without one).
 */
export function obligation(
  subscriber: RequiredSubscriber,
  event: {
    readonly type: string | null;
    readonly tenant?: string | undefined;
    readonly timestampMs: number;
    /** The record's headers, for a filter on attributes; absent: not judged. */
    readonly headers?: Readonly<Record<string, string>>;
  },
): 'owed' | 'filtered' | 'not-owed' {
  if (!subscriber.takes(event.type ?? '', event.tenant)) return 'filtered';
  if (event.headers !== undefined && !subscriber.admits(event.headers)) return 'filtered';
  return event.timestampMs < subscriber.owedFromMs ? 'not-owed' : 'owed';
}

/** One copy of the event in a retry tier or the DLQ of the subscriber. */
export interface Hop {
  readonly kind: 'tier' | 'dlq';
  readonly location: RecordLocation;
  /** Where it was copied from (`<topic>:<partition>:<offset>`): the events record, a tier record, or (a replay) a DLQ record. */
  readonly source: string | null;
  readonly tier: number | null;
  readonly attempts: number | null;
  readonly dueAt: string | null;
  readonly reason: DeadLetterReason | null;
  readonly status: number | null;
  /** A replay's copy: the DLQ record it came from. */
  readonly replayOf: string | null;
}

/** A range of a topic retention deleted unread, from a `lost` dead letter. */
export interface LostRange {
  readonly topic: string;
  readonly partition: number;
  readonly lostFrom: string;
  readonly lostTo: string;
  readonly lostCount: number;
  /** When the pusher found the gap. */
  readonly foundAtMs: number;
  readonly dlq: RecordLocation;
}

/** Committed offsets by partition: the next offset, or null when none. */
export type PartitionLedger = ReadonlyMap<number, string | null>;

/**
 * One obligation's state and what it rests on, for the listed ids: a copy's detail, or null when
 * the ledger rule alone decided (no copy; `ledgerDetail` says it). Most obligations are the
 * latter, and a window of millions allocates nothing per event for them.
 */
export interface Verdict {
  readonly state: Exclude<ReconcileState, 'filtered' | 'lost'>;
  readonly detail: string | null;
}

const PENDING_BY_LEDGER: Verdict = { state: 'pending', detail: null };
const DELIVERED_BY_LEDGER: Verdict = { state: 'delivered', detail: null };

/** The detail of a verdict the ledger rule decided: the offset against the committed one. */
export function ledgerDetail(offset: string, committed: string | null): string {
  if (committed === null) return 'no committed offset yet';
  return aboveLedger(offset, committed)
    ? `offset ${offset} ≥ committed ${committed}`
    : `offset ${offset} < committed ${committed}`;
}

/**
 * A subscriber's failures since the window began, indexed by the events-topic record they
 * started from: its tiers' and DLQ's records (each carries its origin), the replay log's entries
 * for those DLQ records, and the tiers' committed offsets. Its size is the failures, never the
 * traffic: a record that was delivered at the first attempt leaves nothing here.
 */
export class SubscriberEvidence {
  readonly name: string;
  readonly eventsTopic: string;
  readonly #byOrigin = new Map<string, Hop[]>();
  readonly #dlq = new Set<string>();
  readonly #replayed = new Map<string, string>();
  readonly #tierLedgers = new Map<string, PartitionLedger>();
  readonly lost: LostRange[] = [];
  /** Records whose hookstream headers do not parse (written by something else): not evidence. */
  unreadable = 0;

  constructor(name: string, eventsTopic: string) {
    this.name = name;
    this.eventsTopic = eventsTopic;
  }

  get size(): number {
    return this.#byOrigin.size;
  }

  /** A record of retry tier `tier`. */
  addTierRecord(record: StoredRecord, tier: number): void {
    this.#add(record, 'tier', tier);
  }

  addDlqRecord(record: StoredRecord): void {
    const h = record.headers;
    if (h[HS_HEADER.deadLetterReason] === 'lost') {
      const from = h[HS_HEADER.lostFrom];
      const to = h[HS_HEADER.lostTo];
      const topic = h[HS_HEADER.originTopic];
      const partition = Number(h[HS_HEADER.originPartition]);
      const found = Date.parse(h[HS_HEADER.deadLetteredAt] ?? '');
      if (from === undefined || to === undefined || topic === undefined || !Number.isInteger(partition)) {
        this.unreadable++;
        return;
      }
      this.lost.push({
        topic,
        partition,
        lostFrom: from,
        lostTo: to,
        lostCount: Number(h[HS_HEADER.lostCount] ?? BigInt(to) - BigInt(from) + 1n),
        foundAtMs: Number.isNaN(found) ? record.timestampMs : found,
        dlq: { topic: record.topic, partition: record.partition, offset: record.offset },
      });
      return;
    }
    if (this.#add(record, 'dlq', null)) this.#dlq.add(`${record.topic}:${record.partition}:${record.offset}`);
  }

  /**
   * A replay log record (read in offset order): the newest entry of a key wins, a null value
   * deletes it, as compaction will. Only entries of DLQ records indexed here are kept, so the
   * DLQ is read first.
   */
  addReplayLogRecord(record: Pick<StoredRecord, 'key' | 'value'>): void {
    if (record.key === null || !this.#dlq.has(record.key)) return;
    if (record.value === null) {
      this.#replayed.delete(record.key);
      return;
    }
    try {
      const entry = JSON.parse(record.value.toString('utf8')) as { tier?: unknown };
      const tier = RecordLocation.safeParse(entry.tier);
      this.#replayed.set(record.key, tier.success ? formatLocation(tier.data) : '');
    } catch {
      this.unreadable++;
    }
  }

  setTierLedger(topic: string, committed: PartitionLedger): void {
    this.#tierLedgers.set(topic, committed);
  }

  /** Whether the tier record is settled: below its tier's committed offset. */
  tierSettled(location: RecordLocation): boolean {
    const committed = this.#tierLedgers.get(location.topic)?.get(location.partition) ?? null;
    return !aboveLedger(location.offset, committed);
  }

  /** Where a replay log entry says the DLQ record was replayed to ('' unknown); undefined when never. */
  replayedTo(dlq: string): string | undefined {
    return this.#replayed.get(dlq);
  }

  hopsFor(partition: number, offset: string): readonly Hop[] {
    return this.#byOrigin.get(`${partition}:${offset}`) ?? [];
  }

  #add(record: StoredRecord, kind: Hop['kind'], tier: number | null): boolean {
    const f = readHsHeaders(record.headers);
    const origin = RecordLocation.safeParse(f.origin);
    if (!origin.success) {
      this.unreadable++;
      return false;
    }
    if (origin.data.topic !== this.eventsTopic) return false;
    const source = RecordLocation.safeParse(f.source);
    const reason = DeadLetterReason.safeParse(f.reason);
    const attempts = Number(f.attempts);
    const status = Number(f.status);
    const hop: Hop = {
      kind,
      location: { topic: record.topic, partition: record.partition, offset: record.offset },
      source: source.success ? formatLocation(source.data) : null,
      tier,
      attempts: f.attempts === undefined || Number.isNaN(attempts) ? null : attempts,
      dueAt: typeof f.dueAt === 'string' ? f.dueAt : null,
      reason: reason.success ? reason.data : null,
      status: f.status === undefined || Number.isNaN(status) ? null : status,
      replayOf: typeof f.replayOf === 'string' ? f.replayOf : null,
    };
    const key = `${origin.data.partition}:${origin.data.offset}`;
    const hops = this.#byOrigin.get(key);
    if (hops === undefined) this.#byOrigin.set(key, [hop]);
    else hops.push(hop);
    return true;
  }
}

/** Among copies of one event that went separate ways (a repeated attempt), the most advanced wins. */
const LEAF_RANK: Record<Verdict['state'], number> = {
  delivered: 4,
  replayed: 3,
  retrying: 2,
  pending: 1,
  'dead-lettered': 0,
};

/**
 * One owed event's state for one subscriber. Its copies form a chain (each names its source):
 * events record → tier → … → DLQ → (replay) tier 1 → …. The last copy of each chain says where
 * it is: a tier record above its tier's ledger waits (retrying, or replayed when a replay sent
 * it); one below it settled without a further copy, so it was delivered; a DLQ record is
 * dead-lettered unless the replay log names it (replayed). Without any copy the ledger rule
 * answers: above the committed offset it is pending, below it it was delivered.
 */
export function classifyObligation(
  event: RecordLocation,
  committed: PartitionLedger,
  evidence: SubscriberEvidence,
): Verdict {
  const hops = evidence.hopsFor(event.partition, event.offset);
  if (hops.length === 0)
    return aboveLedger(event.offset, committed.get(event.partition) ?? null)
      ? PENDING_BY_LEDGER
      : DELIVERED_BY_LEDGER;
  const sources = new Set<string>();
  for (const hop of hops) if (hop.source !== null) sources.add(hop.source);
  let best: Verdict | null = null;
  for (const hop of hops) {
    const here = formatLocation(hop.location);
    if (sources.has(here)) continue;
    const verdict = leafVerdict(hop, here, evidence);
    if (best === null || LEAF_RANK[verdict.state] > LEAF_RANK[best.state]) best = verdict;
  }
  // Every copy is some other copy's source only in a cycle, which headers cannot form.
  return best ?? { state: 'pending', detail: 'copies found, none last' };
}

function leafVerdict(hop: Hop, here: string, evidence: SubscriberEvidence): Verdict {
  if (hop.kind === 'dlq') {
    const to = evidence.replayedTo(here);
    if (to !== undefined)
      return { state: 'replayed', detail: `${here} replayed${to === '' ? '' : ` to ${to}`}` };
    const status = hop.status === null ? '' : `, status ${hop.status}`;
    return {
      state: 'dead-lettered',
      detail: `${hop.reason ?? 'unknown reason'} after ${hop.attempts ?? '?'} attempt(s)${status}, at ${here}`,
    };
  }
  if (evidence.tierSettled(hop.location))
    return { state: 'delivered', detail: `from retry tier ${hop.tier ?? '?'} (${here} settled)` };
  const waiting = `in retry tier ${hop.tier ?? '?'} at ${here}, due ${hop.dueAt ?? '?'}`;
  return hop.replayOf !== null
    ? { state: 'replayed', detail: `${waiting} (a replay of ${hop.replayOf})` }
    : { state: 'retrying', detail: `${waiting}, after attempt ${hop.attempts ?? '?'}` };
}

/** What reconcile read of one events-topic partition. */
export interface WindowPartition {
  readonly partition: number;
  readonly start: string;
  readonly end: string;
  /** The window began before what the partition still holds. */
  readonly cut: boolean;
}

/**
 * Whether a `lost` range belongs to the window. On the events topic: it overlaps the offsets
 * read, or (the window began before what the partition still holds, where those offsets are
 * gone) it lies below the window's end and was found after the window began. A tier's range
 * (its records' events cannot be known any more) counts when found after the window began.
 */
export function lostInWindow(
  range: LostRange,
  eventsTopic: string,
  fromMs: number,
  window: readonly WindowPartition[],
): boolean {
  if (range.topic !== eventsTopic) return range.foundAtMs >= fromMs;
  const p = window.find((w) => w.partition === range.partition);
  if (p === undefined) return false;
  const from = BigInt(range.lostFrom);
  const to = BigInt(range.lostTo);
  if (to >= BigInt(p.start) && from < BigInt(p.end)) return true;
  return p.cut && range.foundAtMs >= fromMs && from < BigInt(p.end);
}

/** One listed obligation: an event id (or, for `lost`, a range) and why. */
export interface ListedObligation {
  readonly eventId: string;
  readonly location: string;
  readonly detail: string;
}

export interface SubscriberTally {
  readonly subscriber: string;
  /** Events of the window it owes (each counted under one state except `filtered`). */
  readonly owed: number;
  /** Events of the window before its obligations began (requiredFrom, start). */
  readonly notOwed: number;
  readonly counts: Readonly<Record<ReconcileState, number>>;
  /** The first `sampleSize` of each listed state, in the order read. */
  readonly listed: Readonly<Partial<Record<ReconcileState, readonly ListedObligation[]>>>;
}

function emptyCounts(): Record<ReconcileState, number> {
  return { delivered: 0, filtered: 0, pending: 0, retrying: 0, 'dead-lettered': 0, replayed: 0, lost: 0 };
}

/** Counts per subscriber and the first ids of each listed state: memory bounded by subscribers × states × sampleSize. */
export class ReconcileTally {
  readonly #sampleSize: number;
  readonly #subs = new Map<
    string,
    {
      owed: number;
      notOwed: number;
      counts: Record<ReconcileState, number>;
      listed: Map<ReconcileState, ListedObligation[]>;
    }
  >();

  constructor(subscribers: readonly string[], sampleSize = 20) {
    this.#sampleSize = sampleSize;
    for (const name of subscribers)
      this.#subs.set(name, { owed: 0, notOwed: 0, counts: emptyCounts(), listed: new Map() });
  }

  notOwed(subscriber: string): void {
    const s = this.#sub(subscriber);
    s.notOwed++;
  }

  /**
   * Counts one obligation (or `weight`, a lost range); true when its state is listed and its list
   * has room, so the caller builds the item (`list`) only then: most counts allocate nothing.
   */
  count(subscriber: string, state: ReconcileState, weight = 1): boolean {
    const s = this.#sub(subscriber);
    s.counts[state] += weight;
    if (state !== 'filtered') s.owed += weight;
    return LISTED_STATES.includes(state) && (s.listed.get(state)?.length ?? 0) < this.#sampleSize;
  }

  list(subscriber: string, state: ReconcileState, item: ListedObligation): void {
    const s = this.#sub(subscriber);
    const list = s.listed.get(state) ?? [];
    if (list.length < this.#sampleSize) list.push(item);
    s.listed.set(state, list);
  }

  result(): SubscriberTally[] {
    return [...this.#subs.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([subscriber, s]) => ({
        subscriber,
        owed: s.owed,
        notOwed: s.notOwed,
        counts: { ...s.counts },
        listed: Object.fromEntries(s.listed),
      }));
  }

  #sub(name: string) {
    const s = this.#subs.get(name);
    if (s === undefined) throw new Error(`reconcile: subscriber ${name} was not tallied`);
    return s;
  }
}

/** Where retention cut into the window: the topic, partition and the first record it still holds. */
export interface RetentionBoundary {
  readonly topic: string;
  readonly partition: number;
  /** The Kafka timestamp of the first record still held; null when the partition holds none. */
  readonly firstKeptMs: number | null;
}

/**
 * Exit code: 1 when an obligation is lost or dead-lettered and not replayed (a known failure
 * outranks an incomplete window), else 3 when the window reaches past what retention still
 * holds, else 0. (2, a bad option, is decided before anything is read.)
 */
export function reconcileExitCode(
  tallies: readonly SubscriberTally[],
  boundary: RetentionBoundary | null,
): 0 | 1 | 3 {
  if (tallies.some((t) => BROKEN_STATES.some((s) => t.counts[s] > 0))) return 1;
  return boundary === null ? 0 : 3;
}
