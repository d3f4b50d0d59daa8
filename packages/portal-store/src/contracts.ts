import {
  DeadLetterReason,
  EventId,
  EventTypeName,
  LedgerStep,
  RecordLocation,
  SubscriberName,
  TenantId,
} from '@hookstream/contracts';
import { z } from 'zod';

/** The most messages one page holds. */
export const MAX_PAGE_SIZE = 100;
/**
 * The most endpoints (subscribers) a list can be limited to: a portal link's, or a tenant's own
 * (the management layer names them so an operator's subscriber of no tenant never shows), which
 * covers the default tenant quota of 100 twice.
 */
export const MAX_LISTED_SUBSCRIBERS = 200;
/** The most event types one list asks for at once. */
export const MAX_LISTED_TYPES = 20;
/**
 * Each (endpoint, type) pair is one index walk of at most a page: this bounds a list's work
 * whatever the tenant's size.
 */
export const MAX_LIST_LANES = 200;
/** The newest attempts of one endpoint a message's page shows (a long retry chain is cut). */
export const MAX_ATTEMPTS_PER_ENDPOINT = 200;

const Instant = z.iso.datetime({ offset: true });

/**
 * Where a message stands. For one endpoint: its latest step (delivered, retry-scheduled →
 * pending, dead-lettered → failed, filtered). For a message: failed if any endpoint failed,
 * else pending if any is pending, else filtered if every endpoint filtered it, else delivered.
 */
export const MessageState = z.enum(['delivered', 'pending', 'failed', 'filtered']);
export type MessageState = z.infer<typeof MessageState>;

export const ListMessagesQuery = z
  .object({
    tenant: TenantId,
    /**
     * Only these endpoints: a message is listed when one of them has a step, its state is
     * theirs alone, and `state` matches a message one of them is in. Empty: nothing is listed.
     */
    subscribers: z.array(SubscriberName).max(MAX_LISTED_SUBSCRIBERS).optional(),
    /** Only messages of these types. */
    types: z.array(EventTypeName).min(1).max(MAX_LISTED_TYPES).optional(),
    state: MessageState.optional(),
    /** Just this message (when it matches the rest). */
    eventId: EventId.optional(),
    /** Messages first seen at or after this time. */
    since: Instant.optional(),
    /** Messages first seen before this time. */
    until: Instant.optional(),
    limit: z.number().int().min(1).max(MAX_PAGE_SIZE),
    /** A page's `nextCursor`: the list goes on after it. */
    cursor: z.string().min(1).max(64).optional(),
  })
  .refine((q) => (q.subscribers?.length ?? 1) * (q.types?.length ?? 1) <= MAX_LIST_LANES, {
    message: `endpoints × types must be at most ${MAX_LIST_LANES}`,
  });
export type ListMessagesQuery = z.infer<typeof ListMessagesQuery>;

/** One endpoint's standing on a message. */
export const EndpointState = z.object({
  subscriber: SubscriberName,
  state: MessageState,
  /** Its latest step. */
  step: LedgerStep,
  /** Delivery attempts made (steps of attempt 0, filtered or poison, make none). */
  attemptCount: z.number().int().min(0),
  /** The HTTP status of the latest step, when it had one. */
  lastStatus: z.number().int().nullable(),
  lastAt: Instant,
});
export type EndpointState = z.infer<typeof EndpointState>;

export const MessageSummary = z.object({
  eventId: EventId,
  /** Null for entries written before the attempt log carried the type. */
  type: EventTypeName.nullable(),
  /** The first step seen of it: the list's order. */
  firstAt: Instant,
  /** The latest step of the endpoints shown. */
  lastAt: Instant,
  state: MessageState,
  endpoints: z.array(EndpointState),
});
export type MessageSummary = z.infer<typeof MessageSummary>;

export const MessagePage = z.object({
  /** Newest first. */
  messages: z.array(MessageSummary),
  /** Pass as `cursor` for the next page; null when there is none. */
  nextCursor: z.string().nullable(),
});
export type MessagePage = z.infer<typeof MessagePage>;

/** One step of one endpoint, as the attempt log wrote it. */
export const AttemptRecord = z.object({
  attempt: z.number().int().min(0),
  step: LedgerStep,
  at: Instant,
  status: z.number().int().nullable(),
  durationMs: z.number().min(0).nullable(),
  outcome: z.string().nullable(),
  /** The start of the endpoint's answer, redacted by the writer. */
  excerpt: z.string().nullable(),
  tier: z.number().int().min(1).nullable(),
  dueAt: Instant.nullable(),
  deadLetterReason: DeadLetterReason.nullable(),
  origin: RecordLocation.nullable(),
  source: RecordLocation,
});
export type AttemptRecord = z.infer<typeof AttemptRecord>;

export const EndpointAttempts = EndpointState.extend({
  /** Oldest first: the newest MAX_ATTEMPTS_PER_ENDPOINT. */
  attempts: z.array(AttemptRecord),
  /** Older attempts were left out. */
  truncated: z.boolean(),
});
export type EndpointAttempts = z.infer<typeof EndpointAttempts>;

export const MessageDetail = MessageSummary.extend({ endpoints: z.array(EndpointAttempts) });
export type MessageDetail = z.infer<typeof MessageDetail>;

export const StoreStats = z.object({
  messages: z.number().int().min(0),
  endpointStates: z.number().int().min(0),
  attempts: z.number().int().min(0),
  /** The database file and its write-ahead log. */
  fileBytes: z.number().int().min(0),
  walBytes: z.number().int().min(0),
  /** SQLite's page cache bound (PRAGMA cache_size): what the store holds in memory at most. */
  cacheBytes: z.number().int().min(0),
});
export type StoreStats = z.infer<typeof StoreStats>;

/** Where indexing of one partition of the attempt log goes on: its next offset. */
export const IndexPosition = z.object({
  topic: z.string().min(1),
  partition: z.number().int().min(0),
  nextOffset: z.string().regex(/^\d+$/),
});
export type IndexPosition = z.infer<typeof IndexPosition>;

/** What one apply did with its entries. */
export interface ApplyResult {
  readonly applied: number;
  /** Already in the store (a replay of the same entries). */
  readonly duplicates: number;
  /** Entries of events without a tenant: the portal shows tenants only, so they are not kept. */
  readonly untenanted: number;
}
