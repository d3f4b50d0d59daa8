import { z } from 'zod';

/** Dotted lowercase names such as `shipment.updated`. */
export const EventTypeName = z
  .string()
  .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, 'a dotted lowercase name such as "shipment.updated"');
export type EventTypeName = z.infer<typeof EventTypeName>;

/** Stable for the life of an event: given by the producer or generated once at intake. */
export const EventId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits, ".", "_", ":" or "-"');
export type EventId = z.infer<typeof EventId>;

/**
 * Field names the pusher adds at the top level of every request body, so event data must not
 * use them itself (the ingress rejects such data).
 */
export const RESERVED_DATA_FIELDS = [
  'event_id',
  'subscription_id',
  'delivery_id',
  'attempt',
  'type',
  'occurred_at',
] as const;

/** One event as stored on the events topic: key + CloudEvents headers + Avro data. */
export const EventEnvelope = z.object({
  id: EventId,
  type: EventTypeName,
  /** CloudEvents `source`: who produced it, e.g. `/ingress` or `/services/shipping`. */
  source: z.string().min(1),
  /** When it happened (RFC 3339), which is the `occurred_at` subscribers see. */
  time: z.iso.datetime({ offset: true }),
  /** The partition key; events of one key keep their order. */
  key: z.string().min(1),
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;
