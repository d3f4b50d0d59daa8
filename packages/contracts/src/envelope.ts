import { z } from 'zod';

const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const ID_PATTERN = /^[A-Za-z0-9._:-]+$/;
const ID_CHARACTERS = 'letters, digits, ".", "_", ":" or "-"';
const MAX_EVENT_ID_LENGTH = 200;

/** Dotted lowercase names such as `shipment.updated`. */
export const EventTypeName = z
  .string()
  .regex(EVENT_TYPE_PATTERN, 'a dotted lowercase name such as "shipment.updated"');
export type EventTypeName = z.infer<typeof EventTypeName>;

/** Stable for the life of an event: given by the producer or generated once at intake. */
export const EventId = z.string().min(1).max(MAX_EVENT_ID_LENGTH).regex(ID_PATTERN, ID_CHARACTERS);
export type EventId = z.infer<typeof EventId>;

/** Longest tenant name: it travels in a header of every record and in every body. */
export const MAX_TENANT_LENGTH = 100;

/**
 * Whose event it is (the CloudEvents extension attribute `tenant`, header `ce_tenant`): the
 * characters of an event id, at most MAX_TENANT_LENGTH. Absent: the event has no tenant.
 */
export const TenantId = z.string().min(1).max(MAX_TENANT_LENGTH).regex(ID_PATTERN, ID_CHARACTERS);
export type TenantId = z.infer<typeof TenantId>;

// The three schemas' checks as predicates, for the pusher, which checks every record's headers:
// a zod parse builds a result object per call. Tested to agree with the schemas.
export function isEventTypeName(value: string): boolean {
  return EVENT_TYPE_PATTERN.test(value);
}

export function isEventId(value: string): boolean {
  return value.length >= 1 && value.length <= MAX_EVENT_ID_LENGTH && ID_PATTERN.test(value);
}

export function isTenantId(value: string): boolean {
  return value.length >= 1 && value.length <= MAX_TENANT_LENGTH && ID_PATTERN.test(value);
}

/**
 * Field names the pusher adds at the top level of request bodies (`tenant` only for an event
 * that has one), so event data must not use them itself: the ingress rejects such data, and
 * a schema declaring one at its top level is refused.
 */
export const RESERVED_DATA_FIELDS = [
  'event_id',
  'subscription_id',
  'delivery_id',
  'attempt',
  'type',
  'occurred_at',
  'tenant',
] as const;

/** CloudEvents `time`: RFC 3339 with an offset. */
const EventTime = z.iso.datetime({ offset: true });
/** The schema's own pattern (a zod iso datetime is its regex alone), so the two cannot part. */
const EVENT_TIME_PATTERN = patternOf(EventTime);

function patternOf(schema: typeof EventTime): RegExp {
  const pattern = schema._zod.def.pattern;
  if (pattern === undefined) throw new Error('zod: an iso datetime without a pattern');
  return pattern;
}

/** EventEnvelope's `time` check without a parse: a pusher runs it on every record's ce_time. */
export function isEventTime(value: string): boolean {
  return EVENT_TIME_PATTERN.test(value);
}

/** One event as stored on the events topic: key + CloudEvents headers + Avro data. */
export const EventEnvelope = z.object({
  id: EventId,
  type: EventTypeName,
  /** CloudEvents `source`: who produced it, e.g. `/ingress` or `/services/shipping`. */
  source: z.string().min(1),
  /** When it happened (RFC 3339), which is the `occurred_at` subscribers see. */
  time: EventTime,
  /** The partition key; events of one key keep their order. */
  key: z.string().min(1),
  /** The CloudEvents extension attribute `tenant`; absent when the event has no tenant. */
  tenant: TenantId.optional(),
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;
