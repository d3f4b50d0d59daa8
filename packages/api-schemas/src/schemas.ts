import {
  AuditRecord,
  DeadLetterReason,
  EventId,
  SubscriberName,
  SubscriberSpec,
  SubscriberState,
} from '@hookstream/contracts';
import { StatusMatch } from '@hookstream/replay';
import { z } from 'zod';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './page-limits.ts';

// The request and answer shapes of the management API: the requests' validate them, and all of
// them make the OpenAPI document (openapi.ts). Answers holding another component's records
// (evidence, ledger lines, a replay's summary) are open objects: those records own their shape.

/** The ingress's error shape, `{ error: { code, message, details? } }`. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

export const NameParams = z.object({ name: SubscriberName });
export const JobParams = z.object({ id: z.string().regex(/^job_[A-Za-z0-9_-]{1,40}$/, 'a job id') });
export const EventParams = z.object({ id: EventId });
export const NoParams = z.object({});

const limit = (fallback: number) => z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(fallback);
/**
 * A comma-separated list of `item`s. The pattern states the items' form in the document too, so
 * a value the document allows is one the API takes; the length bounds the count.
 */
export const csv = <T extends z.ZodType<unknown, string>>(item: T, itemPattern: string) =>
  z
    .string()
    .max(4000)
    .regex(new RegExp(`^(?:${itemPattern})(?:,(?:${itemPattern}))*$`), `a comma-separated list`)
    .transform((s) => s.split(','))
    .pipe(z.array(item));

export const ListQuery = z.object({
  limit: limit(DEFAULT_PAGE_LIMIT),
  /** `nextCursor` of the page before: the name after which this page starts. */
  cursor: SubscriberName.optional(),
});

export const DeleteQuery = z.object({
  /** Operator only: also delete the group, tiers and DLQ, and free the name (a tenant's delete always does). */
  purge: z.enum(['true', 'false']).default('false'),
});

/** The CLI's `dlq list` selection, as query parameters (lists comma-separated). */
export const DeadLetterQuery = z.object({
  eventId: csv(EventId, '[A-Za-z0-9._:-]{1,200}').optional(),
  reason: csv(DeadLetterReason, DeadLetterReason.options.join('|')).optional(),
  status: csv(StatusMatch, '[1-5][0-9][0-9]|[1-5]xx|none').optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: limit(DEFAULT_PAGE_LIMIT),
});

export const AuditQuery = z.object({
  subscriber: SubscriberName.optional(),
  limit: limit(DEFAULT_PAGE_LIMIT),
});

/** A definition as `subscribers apply` takes it; the path names it, so `name` may be left out. */
export const PutBody = SubscriberSpec.extend({ name: SubscriberName.optional() });

export const PauseBody = z.strictObject({ reason: z.string().max(500).optional() }).optional();

export const RotateBody = z
  .strictObject({
    /** How long the old secret keeps signing (default 24 h; 0: drops it at once; at most 30 days). */
    graceMs: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400_000)
      .optional(),
  })
  .optional();

/** Which dead letters to replay (the CLI's selection), and how. */
export const ReplayBody = z.strictObject({
  eventIds: z.array(EventId).max(1000).default([]),
  reasons: z.array(DeadLetterReason).max(10).default([]),
  statuses: z.array(StatusMatch).max(100).default([]),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: z.number().int().min(1).max(100_000).optional(),
  dryRun: z.boolean().default(false),
  /** Replay records the replay log already names. */
  again: z.boolean().default(false),
});

const open = z.looseObject({});

export const SubscriberItem = z.object({
  name: z.string(),
  tenant: z.string().nullable(),
  state: SubscriberState,
  lag: z.number().nullable(),
  oldestUnsettledAgeMs: z.number().nullable(),
  retentionHeadroomSeconds: z.union([z.number(), z.literal('unbounded')]).nullable(),
  dlqDepth: z.number().nullable(),
  breaker: z.enum(['closed', 'open', 'half-open']).nullable(),
});

export const SubscriberList = z.object({
  items: z.array(SubscriberItem),
  nextCursor: z.string().nullable(),
  retentionHeadroomError: z.string().nullable(),
  /**
   * Groups of names Kafka cannot tell apart ('.' against '_'), held from before they were
   * refused: their subscribers share topics; delete one of each. Shown to the operator only.
   */
  nameCollisions: z.array(z.array(z.string())),
});

/** The record without sealed material (a managed secret is described, never shown), and its ETag. */
export const SubscriberResource = z.looseObject({
  version: z.number(),
  // A pull subscriber's (`mode: "pull"`) has no url.
  definition: z.looseObject({ name: z.string(), url: z.string().optional() }),
  state: SubscriberState,
  secret: open.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  etag: z.string(),
});

export const PutAnswer = z.object({
  action: z.enum(['created', 'changed', 'unchanged']),
  subscriber: SubscriberResource,
  /**
   * The operator's sealed values (`headers.<name>`, `oauth2.clientSecret`, `clientCertificate.key`)
   * a tenant's move to a new origin dropped; the operator seals them again. Empty otherwise.
   */
  droppedSeals: z.array(z.string()),
});

export const DeleteAnswer = z.object({
  name: z.string(),
  deleted: z.boolean(),
  purged: open.nullable(),
  bound: z.boolean(),
});

export const StateAnswer = z.object({
  name: z.string(),
  changed: z.boolean(),
  state: SubscriberState,
  /** The subscriber.enabled notice's id, when resuming a disabled subscriber published one. */
  published: z.string().nullish(),
  noticeError: z.string().nullable(),
});

export const SecretAnswer = z.object({
  name: z.string(),
  current: z.string(),
  createdAt: z.string(),
  previous: z.array(z.object({ secret: z.string(), expiresAt: z.string() })),
  /** The rotation stands, but its audit record could not be written: why. */
  auditError: z.string().optional(),
});

export const RewindBody = z.strictObject({
  /**
   * `earliest`, an ISO time with its offset (not in the future), or `partition:offset,…` with each
   * partition once (as `subscribers rewind --to`).
   */
  to: z.union([
    z.literal('earliest'),
    z.iso.datetime({ offset: true }),
    z
      .string()
      .max(2000)
      .regex(/^\d{1,5}:\d{1,15}(,\d{1,5}:\d{1,15})*$/, 'partition:offset,…'),
  ]),
  /** Count the events per partition that would be sent again; move nothing. */
  dryRun: z.boolean().default(false),
});

export const RewindAnswer = z.object({
  name: z.string(),
  plan: z.object({
    partitions: z.array(
      z.object({
        partition: z.number(),
        /** The ledger before; null: the group had none there (it starts from the log start). */
        from: z.number().nullable(),
        to: z.number(),
        resend: z.number(),
        /** Records of the wanted range retention already deleted; null: some, not counted. */
        deleted: z.number().nullable(),
      }),
    ),
    resend: z.number(),
    rangeDeleted: z.boolean(),
  }),
  applied: z.boolean(),
  pausedForIt: z.boolean(),
  resumed: z.boolean().optional(),
});

export const DeadLetterList = z.object({
  items: z.array(
    z.object({
      dlq: z.string(),
      eventId: z.string().nullable(),
      eventType: z.string().nullable(),
      tenant: z.string().nullable(),
      deadLetteredAt: z.string(),
      evidence: open.nullable(),
      problem: z.string().nullable(),
    }),
  ),
});

export const Job = z.object({
  id: z.string(),
  subscriber: z.string(),
  dryRun: z.boolean(),
  operator: z.string(),
  startedAt: z.string(),
  state: z.enum(['running', 'done', 'failed']),
  done: z.number(),
  total: z.number().nullable(),
  summary: open.nullable(),
  error: z.string().nullable(),
  warnings: z.array(z.string()),
});

export const LedgerAnswer = z.object({
  eventId: z.string(),
  tenant: z.string().nullable(),
  origin: open.nullable(),
  foundIn: z.enum(['attempt-log', 'events-topic']).nullish(),
  counts: z.record(z.string(), z.number()),
  subscribers: z.array(open),
});

export const EventTypeList = z.object({
  items: z.array(
    z.object({
      type: z.string(),
      subject: z.string(),
      schema: open,
      subscribers: z.array(z.string()),
    }),
  ),
});

export const AuditList = z.object({ items: z.array(AuditRecord) });

export const OpenApiDocument = open;
