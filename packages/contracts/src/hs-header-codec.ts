import {
  DeadLetterEvidence,
  type DeadLetterReason,
  HS_HEADER,
  MAX_EXCERPT_CHARS,
  type RecordLocation,
  RetryState,
} from './delivery-headers.ts';

type Headers = Readonly<Record<string, string>>;

/**
 * The hookstream_* fields of one hop as typed values. The one place that turns them into header
 * strings and back: the pusher's retry and DLQ writes, the replay tool's tier records, and every
 * reader go through it, so a header's format cannot drift between writer and reader.
 */
export interface HsFields {
  readonly eventId?: string | undefined;
  readonly subscriber?: string | undefined;
  readonly attempts?: number | undefined;
  readonly firstAttemptAtMs?: number | null | undefined;
  readonly lastAttemptAtMs?: number | null | undefined;
  readonly dueAtMs?: number | undefined;
  readonly outcomeClass?: string | undefined;
  readonly outcome?: string | undefined;
  readonly status?: number | null | undefined;
  /** Cut to MAX_EXCERPT_CHARS; an empty one is not written. */
  readonly excerpt?: string | undefined;
  readonly policyVersion?: string | undefined;
  readonly deadLetterReason?: DeadLetterReason | undefined;
  readonly deadLetteredAtMs?: number | undefined;
  readonly origin?: RecordLocation | undefined;
  readonly source?: RecordLocation | undefined;
  readonly replayOf?: string | undefined;
  readonly replayId?: string | undefined;
  readonly replayedBy?: string | undefined;
  readonly replays?: number | undefined;
  /** A `lost` dead letter's range (both ends included), its size and the ledger's last move. */
  readonly lostFrom?: number | undefined;
  readonly lostTo?: number | undefined;
  readonly lostCount?: number | undefined;
  readonly lastCommitAtMs?: number | null | undefined;
}

const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? undefined : new Date(ms).toISOString();
const decimal = (n: number | null | undefined) => (n === null || n === undefined ? undefined : String(n));

/** Header strings for the fields that are present (times as RFC 3339, numbers as decimals). */
export function writeHsHeaders(f: HsFields): Record<string, string> {
  const h = HS_HEADER;
  const excerpt = f.excerpt?.slice(0, MAX_EXCERPT_CHARS);
  const entries: [string, string | undefined][] = [
    [h.eventId, f.eventId],
    [h.subscriber, f.subscriber],
    [h.attempts, decimal(f.attempts)],
    [h.firstAttemptAt, iso(f.firstAttemptAtMs)],
    [h.lastAttemptAt, iso(f.lastAttemptAtMs)],
    [h.dueAt, iso(f.dueAtMs)],
    [h.outcomeClass, f.outcomeClass],
    [h.outcome, f.outcome],
    [h.status, decimal(f.status)],
    [h.excerpt, excerpt === '' ? undefined : excerpt],
    [h.policyVersion, f.policyVersion],
    [h.deadLetterReason, f.deadLetterReason],
    [h.deadLetteredAt, iso(f.deadLetteredAtMs)],
    [h.originTopic, f.origin?.topic],
    [h.originPartition, decimal(f.origin?.partition)],
    [h.originOffset, f.origin?.offset],
    [h.sourceTopic, f.source?.topic],
    [h.sourcePartition, decimal(f.source?.partition)],
    [h.sourceOffset, f.source?.offset],
    [h.replayOf, f.replayOf],
    [h.replayId, f.replayId],
    [h.replayedBy, f.replayedBy],
    [h.replays, decimal(f.replays)],
    [h.lostFrom, decimal(f.lostFrom)],
    [h.lostTo, decimal(f.lostTo)],
    [h.lostCount, decimal(f.lostCount)],
    [h.lastCommitAt, iso(f.lastCommitAtMs)],
  ];
  const out: Record<string, string> = {};
  for (const [name, value] of entries) if (value !== undefined) out[name] = value;
  return out;
}

function location(headers: Headers, topic: string, partition: string, offset: string) {
  const t = headers[topic];
  if (t === undefined) return undefined;
  return { topic: t, partition: headers[partition], offset: headers[offset] };
}

/** Reads the hookstream_* headers into plain fields (undefined where absent) for a zod parse. */
export function readHsHeaders(headers: Headers): Record<string, unknown> {
  const h = HS_HEADER;
  return {
    eventId: headers[h.eventId],
    subscriber: headers[h.subscriber],
    attempts: headers[h.attempts],
    firstAttemptAt: headers[h.firstAttemptAt],
    lastAttemptAt: headers[h.lastAttemptAt],
    dueAt: headers[h.dueAt],
    deadLetteredAt: headers[h.deadLetteredAt],
    reason: headers[h.deadLetterReason],
    outcomeClass: headers[h.outcomeClass],
    outcome: headers[h.outcome],
    status: headers[h.status],
    excerpt: headers[h.excerpt],
    policyVersion: headers[h.policyVersion],
    origin: location(headers, h.originTopic, h.originPartition, h.originOffset),
    source: location(headers, h.sourceTopic, h.sourcePartition, h.sourceOffset),
    replayOf: headers[h.replayOf],
    replays: headers[h.replays],
    lostFrom: headers[h.lostFrom],
    lostTo: headers[h.lostTo],
    lostCount: headers[h.lostCount],
    lastCommitAt: headers[h.lastCommitAt],
  };
}

/** A retry tier record's delivery so far; null when its headers do not parse. */
export function readRetryState(headers: Headers): RetryState | null {
  const parsed = RetryState.safeParse(readHsHeaders(headers));
  return parsed.success ? parsed.data : null;
}

/** A DLQ record's evidence, or why it cannot be read (each field named). */
export function readDeadLetterEvidence(
  headers: Headers,
): { ok: true; evidence: DeadLetterEvidence } | { ok: false; problem: string } {
  const parsed = DeadLetterEvidence.safeParse(readHsHeaders(headers));
  if (parsed.success) return { ok: true, evidence: parsed.data };
  const problem = parsed.error.issues
    .map((i) => `${i.path.join('.') || '(headers)'}: ${i.message}`)
    .join('; ');
  return { ok: false, problem };
}

/** When a tier record is due (ms since epoch); null when absent or unreadable. */
export function readDueAtMs(headers: Headers): number | null {
  const dueAt = headers[HS_HEADER.dueAt];
  const ms = dueAt === undefined ? Number.NaN : Date.parse(dueAt);
  return Number.isNaN(ms) ? null : ms;
}
