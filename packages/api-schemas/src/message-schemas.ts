import {
  DeadLetterReason,
  EventId,
  EventTypeName,
  LedgerStep,
  SubscriberName,
  TenantId,
} from '@hookstream/contracts';
import { z } from 'zod';
import { csv } from './schemas.ts';

// The customer portal's messages (docs/api.md, "Messages"): an event with what each endpoint did
// with it, read from the portal's message index, and the two actions on one message or endpoint.

/** A page of messages holds at most this many: a list is read per page view. */
export const MAX_MESSAGE_PAGE = 100;
export const DEFAULT_MESSAGE_PAGE = 50;

/**
 * Where a message is, over its endpoints: `delivered` (every endpoint took it), `pending` (one
 * still retries or has not been reached), `failed` (one dead-lettered it), `filtered` (every one
 * passed it over). The index decides it; the API only carries it.
 */
export const MessageState = z.enum(['delivered', 'pending', 'failed', 'filtered']);
export type MessageState = z.infer<typeof MessageState>;

const Instant = z.iso.datetime({ offset: true });

/** What one endpoint (subscriber) did with a message: its last step. */
export const MessageEndpoint = z.object({
  subscriber: SubscriberName,
  step: LedgerStep,
  attempts: z.number().int().min(0),
  lastStatus: z.number().int().optional(),
  lastAt: Instant,
});
export type MessageEndpoint = z.infer<typeof MessageEndpoint>;

/** A message as a list shows it: the event, its state, and each endpoint's last step. */
export const MessageSummary = z.object({
  eventId: EventId,
  /** Null for steps written before the attempt log carried the event's type. */
  type: EventTypeName.nullable(),
  tenant: TenantId,
  firstAt: Instant,
  lastAt: Instant,
  state: MessageState,
  endpoints: z.array(MessageEndpoint).max(1000),
});
export type MessageSummary = z.infer<typeof MessageSummary>;

/** One attempt log step of a message, as the message's page shows it. */
export const MessageAttempt = z.object({
  subscriber: SubscriberName,
  attempt: z.number().int().min(0),
  step: LedgerStep,
  at: Instant,
  status: z.number().int().optional(),
  durationMs: z.number().min(0).optional(),
  outcome: z.string().max(500).optional(),
  /** The start of the endpoint's answer, credentials redacted (the attempt log's excerpt). */
  excerpt: z.string().max(512).optional(),
  tier: z.number().int().min(1).optional(),
  dueAt: Instant.optional(),
  deadLetterReason: DeadLetterReason.optional(),
});
export type MessageAttempt = z.infer<typeof MessageAttempt>;

/** One message with every attempt, oldest first. */
export const MessageDetail = MessageSummary.extend({ attempts: z.array(MessageAttempt).max(10_000) });
export type MessageDetail = z.infer<typeof MessageDetail>;

/** A position in the index's order (the last message's first step, in ms, and its row), as a page gave it. */
export const MessageCursor = z
  .string()
  .max(31)
  .regex(/^\d{1,15}\.\d{1,15}$/, 'a cursor as a page gave it');

/** `GET /v1/messages`: lists comma-separated, as every list of this API's queries. */
export const MessageQuery = z.object({
  /** The operator's choice of tenant; a tenant token's is its own (another: 403 forbidden_tenant). */
  tenant: TenantId.optional(),
  subscriber: csv(SubscriberName, '[a-z0-9][a-z0-9._-]{0,99}').optional(),
  type: csv(EventTypeName, '[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+').optional(),
  state: MessageState.optional(),
  eventId: EventId.optional(),
  since: Instant.optional(),
  until: Instant.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_MESSAGE_PAGE).default(DEFAULT_MESSAGE_PAGE),
  cursor: MessageCursor.optional(),
});

export const MessageList = z.object({
  items: z.array(MessageSummary).max(MAX_MESSAGE_PAGE),
  nextCursor: MessageCursor.nullable(),
});
export type MessageList = z.infer<typeof MessageList>;

export const MessageParams = z.object({ eventId: EventId });
export const ResendParams = z.object({ eventId: EventId, name: SubscriberName });

/** `POST …/resend`: the event put back on the endpoint's retry tier 1. */
export const ResendAnswer = z.object({
  eventId: EventId,
  subscriber: SubscriberName,
  /** Where the copy was written, `<topic>:<partition>:<offset>`. */
  sentTo: z.string(),
});
export type ResendAnswer = z.infer<typeof ResendAnswer>;

export const SendExampleBody = z.strictObject({ type: EventTypeName });

/** `POST …/send-example`: the new event's id, and where it was written. */
export const SendExampleAnswer = z.object({
  eventId: EventId,
  subscriber: SubscriberName,
  type: EventTypeName,
  sentTo: z.string(),
});
export type SendExampleAnswer = z.infer<typeof SendExampleAnswer>;

/**
 * What the operator lets the portal and the API show of a message's data: `none`, `digest` (its
 * size and SHA-256, as Kafka holds it), or `full` (the data, decoded). One setting per API.
 */
export const PayloadMode = z.enum(['none', 'digest', 'full']);
export type PayloadMode = z.infer<typeof PayloadMode>;

/** `GET /v1/messages/{eventId}/payload`: as much of the event's data as the mode shows. */
export const MessagePayload = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('none') }),
  z.object({
    mode: z.literal('digest'),
    /** The stored value's size: Avro in the registry's wire format, as producers wrote it. */
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  z.object({
    mode: z.literal('full'),
    bytes: z.number().int().min(0),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    data: z.record(z.string(), z.unknown()),
  }),
]);
export type MessagePayload = z.infer<typeof MessagePayload>;
