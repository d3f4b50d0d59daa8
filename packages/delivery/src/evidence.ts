import {
  type DeadLetterReason,
  HS_HEADER,
  type HsFields,
  type RecordLocation,
  TRACEPARENT_HEADER,
  TRACESTATE_HEADER,
  writeHsHeaders,
} from '@hookstream/contracts';
import type { Classification } from './policy.ts';

/** What a failed delivery leaves behind, as plain data (no Kafka, no HTTP). */
export interface DeliveryTrail {
  readonly eventId: string | null;
  readonly subscriber: string;
  /** Attempts made in the current budget (0 when none reached the endpoint). */
  readonly attempts: number;
  readonly firstAttemptAtMs: number | null;
  readonly lastAttemptAtMs: number | null;
  /** Null for a poison record or an event that expired before its attempt. */
  readonly classification: Classification | null;
  readonly excerpt: string;
  readonly policyVersion: string;
  /** The events topic record this delivery started from. */
  readonly origin: RecordLocation;
  /** The record that was just consumed (the events topic or a tier). */
  readonly source: RecordLocation;
}

/** Headers that belong to one hop only; they never travel on to the next. */
const HOP_HEADERS: ReadonlySet<string> = new Set(
  Object.values(HS_HEADER).filter(
    (h) => h !== HS_HEADER.replayOf && h !== HS_HEADER.replayId && h !== HS_HEADER.replays,
  ),
);

function trailFields(t: DeliveryTrail): HsFields {
  const c = t.classification;
  return {
    eventId: t.eventId ?? undefined,
    subscriber: t.subscriber,
    attempts: t.attempts,
    firstAttemptAtMs: t.firstAttemptAtMs,
    lastAttemptAtMs: t.lastAttemptAtMs,
    outcomeClass: c?.outcome,
    outcome: c?.reason,
    status: c?.status,
    excerpt: t.excerpt,
    policyVersion: t.policyVersion,
    origin: t.origin,
    source: t.source,
  };
}

/**
 * The trace context of the hand-off (its PRODUCER span's traceparent and tracestate), which
 * replaces the record's own so the next hop continues the trace from the hand-off. Empty when
 * tracing is off: the record's own context then travels on unchanged.
 */
export type TraceHeaders = Readonly<Record<string, string>>;

const TRACE_HEADERS: ReadonlySet<string> = new Set([TRACEPARENT_HEADER, TRACESTATE_HEADER]);

/**
 * The consumed record's headers with the last hop's hookstream_* headers replaced by `added`:
 * the event's own headers (ce_*, traceparent) and its replay lineage travel on unchanged, except
 * the trace context when the hand-off has its own.
 */
function nextHopHeaders(
  original: Readonly<Record<string, string>>,
  added: HsFields,
  trace: TraceHeaders,
): Record<string, string> {
  const replaceTrace = trace[TRACEPARENT_HEADER] !== undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(original))
    if (!HOP_HEADERS.has(name) && !(replaceTrace && TRACE_HEADERS.has(name))) out[name] = value;
  if (replaceTrace) for (const name of TRACE_HEADERS) if (trace[name] !== undefined) out[name] = trace[name];
  return Object.assign(out, writeHsHeaders(added));
}

/** Headers of the record handed to a retry tier: the trail plus when it is due. */
export function retryHeaders(
  original: Readonly<Record<string, string>>,
  trail: DeliveryTrail,
  dueAtMs: number,
  trace: TraceHeaders = {},
): Record<string, string> {
  return nextHopHeaders(original, { ...trailFields(trail), dueAtMs }, trace);
}

/** Headers of a DLQ record: the evidence docs/contract.md lists under "Dead letters are data". */
export function deadLetterHeaders(
  original: Readonly<Record<string, string>>,
  trail: DeliveryTrail,
  reason: DeadLetterReason,
  nowMs: number,
  trace: TraceHeaders = {},
): Record<string, string> {
  return nextHopHeaders(
    original,
    { ...trailFields(trail), deadLetterReason: reason, deadLetteredAtMs: nowMs },
    trace,
  );
}

/** A range of one partition retention deleted before the subscriber read it. */
export interface LostRange {
  readonly subscriber: string;
  readonly topic: string;
  readonly partition: number;
  readonly lostFrom: number;
  /** Included. */
  readonly lostTo: number;
  readonly lostCount: number;
  readonly lastCommitAtMs: number | null;
  readonly foundAtMs: number;
  readonly policyVersion: string;
}

/**
 * Headers of a `lost` dead letter: no event id and no value (there is no event to keep), the
 * range as its origin (its first offset) and its own fields, no attempt made.
 */
export function lostRangeHeaders(r: LostRange): Record<string, string> {
  return writeHsHeaders({
    subscriber: r.subscriber,
    attempts: 0,
    policyVersion: r.policyVersion,
    deadLetterReason: 'lost',
    deadLetteredAtMs: r.foundAtMs,
    origin: { topic: r.topic, partition: r.partition, offset: String(r.lostFrom) },
    lostFrom: r.lostFrom,
    lostTo: r.lostTo,
    lostCount: r.lostCount,
    lastCommitAtMs: r.lastCommitAtMs,
  });
}

/** The gap's key in the DLQ: one record per (topic, partition, first offset lost). */
export function lostRangeKey(r: Pick<LostRange, 'topic' | 'partition' | 'lostFrom'>): string {
  return `lost:${r.topic}:${r.partition}:${r.lostFrom}`;
}
