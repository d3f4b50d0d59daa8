import { z } from 'zod';
import { DeadLetterReason, RecordLocation } from './delivery-headers.ts';
import { EventId, EventTypeName, TenantId } from './envelope.ts';
import { SubscriberName } from './topics.ts';

/**
 * One topic shared by all subscribers: an entry per delivery step (events of types a subscriber
 * does not take are passed over unlogged; the ledger query judges those by the subscriber's
 * definition), placed by event id, so `hookstream ledger <event-id>` can answer without scanning
 * every tier. A record holds one entry or a batch of them (attempt-log-records.ts). Written off
 * the delivery hot path; the committed offsets stay the ledger of record.
 */
export const ATTEMPT_LOG_TOPIC = 'hookstream.attempts';

/** How much of an endpoint's answer an attempt log entry keeps. */
export const ATTEMPT_EXCERPT_MAX_CHARS = 512;

/** What the subscriber did with the event at this step. */
export const LedgerStep = z.enum(['delivered', 'retry-scheduled', 'dead-lettered', 'filtered']);
export type LedgerStep = z.infer<typeof LedgerStep>;

export const AttemptLogEntry = z.object({
  eventId: EventId,
  subscriber: SubscriberName,
  step: LedgerStep,
  /** The attempt that produced this step (0 for filtered or poison). */
  attempt: z.number().int().min(0),
  at: z.iso.datetime({ offset: true }),
  outcome: z.string().optional(),
  status: z.number().int().optional(),
  durationMs: z.number().min(0).optional(),
  /** retry-scheduled: the tier and when it is due. */
  tier: z.number().int().min(1).optional(),
  dueAt: z.iso.datetime({ offset: true }).optional(),
  deadLetterReason: DeadLetterReason.optional(),
  /** The events topic record this delivery started from. */
  origin: RecordLocation.optional(),
  /** The record consumed for this step (events topic, a tier). */
  source: RecordLocation,
  policyVersion: z.string().optional(),
  /** A replay's step: who sent the event again. */
  operator: z.string().min(1).max(200).optional(),
  /**
   * The event's tenant (its ce_tenant); absent for an event without one, and in entries written
   * before tenants. Readers that predate it drop it (the object is not strict) and read the rest.
   */
  tenant: TenantId.optional(),
  /**
   * filtered: the part of the subscriber's `filter` that refused the event (`filter.all[1].exact.type`);
   * absent when its type or tenant did. Older readers drop it.
   */
  filter: z.string().min(1).max(600).optional(),
  /** The attempt went in a batch request: its `webhook-id`. Older readers drop it. */
  batchId: z.string().min(1).max(100).optional(),
  /** The event's type (its ce_type), so the portal's index can find messages by type. Older readers drop it. */
  type: EventTypeName.optional(),
  /**
   * The start of the endpoint's answer (its body, at most ATTEMPT_EXCERPT_MAX_CHARS), with every
   * credential the request carried (its Authorization value, its signature, its secret) replaced
   * by `[redacted]` before it is written. Absent when there was no answer or it had no body, and
   * for pull subscribers (a puller answers with an ack or a nack). Each member of a batch carries
   * the batch's answer (its batchId says so). Older readers drop it.
   */
  excerpt: z.string().max(ATTEMPT_EXCERPT_MAX_CHARS).optional(),
  /**
   * The record was sent again by an operator's rewind (`subscribers rewind`): when it was made
   * and by whom (the ledger's mark, docs/architecture.md "A rewind's mark"). Only on steps of
   * the events-topic record itself: retries of it in the tiers do not carry it. Older readers drop it.
   */
  rewind: z
    .object({
      at: z.iso.datetime({ offset: true }),
      by: z.string().min(1).max(200),
    })
    .optional(),
});
export type AttemptLogEntry = z.infer<typeof AttemptLogEntry>;
