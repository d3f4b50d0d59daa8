import { z } from 'zod';
import { EventId } from './envelope.ts';
import { SubscriberName } from './topics.ts';

/**
 * Headers hookstream adds when a record moves to a retry tier, the DLQ, or back through replay.
 * The original key, value and headers (ce_*, traceparent) always travel unchanged beside them;
 * these are rewritten at every hop. Times are RFC 3339 strings, numbers are decimal strings.
 */
export const HS_HEADER = {
  eventId: 'hookstream_event_id',
  subscriber: 'hookstream_subscriber',
  /** Attempts made so far in the current budget (a replay starts a new budget at 0). */
  attempts: 'hookstream_attempts',
  firstAttemptAt: 'hookstream_first_attempt_at',
  lastAttemptAt: 'hookstream_last_attempt_at',
  /** Tier records: the earliest moment the next attempt may start. */
  dueAt: 'hookstream_due_at',
  /** The last attempt's outcome class and reason (see the delivery contract). */
  outcomeClass: 'hookstream_outcome_class',
  outcome: 'hookstream_outcome',
  /** The last HTTP status; absent when there was no response. */
  status: 'hookstream_status',
  /** A short bounded start of the last response body, or a connection error code. */
  excerpt: 'hookstream_excerpt',
  policyVersion: 'hookstream_policy_version',
  /** DLQ records: terminal | exhausted | expired | poison | lost. */
  deadLetterReason: 'hookstream_dead_letter_reason',
  deadLetteredAt: 'hookstream_dead_lettered_at',
  /** `lost` records: the range retention deleted unread, both ends included, and its size. */
  lostFrom: 'hookstream_lost_from',
  lostTo: 'hookstream_lost_to',
  lostCount: 'hookstream_lost_count',
  /** `lost` records: when the ledger last moved before the gap, when known (RFC 3339). */
  lastCommitAt: 'hookstream_last_commit_at',
  /** Where the event was first read: the events topic record this delivery started from. */
  originTopic: 'hookstream_origin_topic',
  originPartition: 'hookstream_origin_partition',
  originOffset: 'hookstream_origin_offset',
  /** Where this record was read before this hop (a tier or the DLQ). */
  sourceTopic: 'hookstream_source_topic',
  sourcePartition: 'hookstream_source_partition',
  sourceOffset: 'hookstream_source_offset',
  /** Replayed records: the DLQ record they came from, `<topic>:<partition>:<offset>`. */
  replayOf: 'hookstream_replay_of',
  replayId: 'hookstream_replay_id',
  /** Who replayed it (`hookstream dlq replay --operator`, default the OS user). */
  replayedBy: 'hookstream_replayed_by',
  /** How many times this event was replayed for this subscriber. */
  replays: 'hookstream_replays',
} as const;

export type HsHeaderName = (typeof HS_HEADER)[keyof typeof HS_HEADER];

/** Excerpts never grow beyond this many characters (no bodies in dead letters). */
export const MAX_EXCERPT_CHARS = 256;

/** `lost`: no event, a range of a partition retention deleted before the subscriber read it. */
export const DeadLetterReason = z.enum(['terminal', 'exhausted', 'expired', 'poison', 'lost']);
export type DeadLetterReason = z.infer<typeof DeadLetterReason>;

const Count = z.coerce.number().int().min(0);
const Instant = z.iso.datetime({ offset: true });

/** Where a record sits in Kafka. Offsets are int64, so they stay decimal strings. */
export const RecordLocation = z.object({
  topic: z.string().min(1),
  partition: z.coerce.number().int().min(0),
  offset: z.string().regex(/^\d+$/),
});
export type RecordLocation = z.infer<typeof RecordLocation>;

/** What a retry tier record carries about its delivery so far. */
export const RetryState = z.object({
  eventId: EventId,
  subscriber: SubscriberName,
  attempts: Count,
  firstAttemptAt: Instant.optional(),
  lastAttemptAt: Instant.optional(),
  dueAt: Instant,
  outcomeClass: z.string().optional(),
  outcome: z.string().optional(),
  status: z.coerce.number().int().optional(),
  excerpt: z.string().optional(),
  policyVersion: z.string().optional(),
  origin: RecordLocation.optional(),
  replayOf: z.string().optional(),
  replays: Count.optional(),
});
export type RetryState = z.infer<typeof RetryState>;

/** The evidence every DLQ record carries (docs/contract.md, "Dead letters are data"). */
export const DeadLetterEvidence = z.object({
  /** Absent only for a poison record that had no readable event id. */
  eventId: z.string().optional(),
  subscriber: SubscriberName,
  reason: DeadLetterReason,
  attempts: Count,
  firstAttemptAt: Instant.optional(),
  lastAttemptAt: Instant.optional(),
  deadLetteredAt: Instant,
  outcomeClass: z.string().optional(),
  outcome: z.string().optional(),
  status: z.coerce.number().int().optional(),
  excerpt: z.string().optional(),
  policyVersion: z.string(),
  origin: RecordLocation,
  source: RecordLocation.optional(),
  replayOf: z.string().optional(),
  replays: Count.optional(),
  /** `lost` only: the range gone (origin is its first offset), and when the ledger last moved. */
  lostFrom: z.string().regex(/^\d+$/).optional(),
  lostTo: z.string().regex(/^\d+$/).optional(),
  lostCount: Count.optional(),
  lastCommitAt: Instant.optional(),
});
export type DeadLetterEvidence = z.infer<typeof DeadLetterEvidence>;

/** `<topic>:<partition>:<offset>`, the form replay headers and the replay ledger use. */
export function formatLocation(l: RecordLocation): string {
  return `${l.topic}:${l.partition}:${l.offset}`;
}
