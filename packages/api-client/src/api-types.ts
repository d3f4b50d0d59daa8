import type {
  AckAnswer as AckAnswerSchema,
  AckBody,
  AuditList as AuditListSchema,
  AuditQuery,
  DeadLetterList as DeadLetterListSchema,
  DeadLetterQuery,
  DeleteAnswer as DeleteAnswerSchema,
  EventTypeList as EventTypeListSchema,
  Job as JobSchema,
  LeaseAnswer as LeaseAnswerSchema,
  LeaseQuery,
  LedgerAnswer as LedgerAnswerSchema,
  ListQuery,
  MessageDetail as MessageDetailSchema,
  MessageList as MessageListSchema,
  MessagePayload as MessagePayloadSchema,
  MessageQuery,
  NackAnswer as NackAnswerSchema,
  NackBody,
  PauseBody,
  PortalLinkList as PortalLinkListSchema,
  PortalLinkQuery,
  PutAnswer as PutAnswerSchema,
  PutBody,
  ReplayBody,
  ResendAnswer as ResendAnswerSchema,
  RevokedPortalLink as RevokedPortalLinkSchema,
  RewindAnswer as RewindAnswerSchema,
  RewindBody,
  RotateBody,
  SecretAnswer as SecretAnswerSchema,
  SendExampleAnswer as SendExampleAnswerSchema,
  StateAnswer as StateAnswerSchema,
  SubscriberItem as SubscriberItemSchema,
  SubscriberList as SubscriberListSchema,
  SubscriberResource as SubscriberResourceSchema,
} from '@hookstream/api-schemas';
import type {
  MintedPortalLink as MintedPortalLinkSchema,
  PortalLinkRequest as PortalLinkRequestSchema,
} from '@hookstream/contracts';
import type { z } from 'zod';

// The client's types, each the type of the server's own zod schema (@hookstream/api): what a
// request may hold as the schema takes it (`input`), an answer as the schema parses it (`output`).

export type SubscriberList = z.output<typeof SubscriberListSchema>;
export type SubscriberItem = z.output<typeof SubscriberItemSchema>;
export type SubscriberResource = z.output<typeof SubscriberResourceSchema>;
export type PutAnswer = z.output<typeof PutAnswerSchema>;
export type DeleteAnswer = z.output<typeof DeleteAnswerSchema>;
export type StateAnswer = z.output<typeof StateAnswerSchema>;
export type SecretAnswer = z.output<typeof SecretAnswerSchema>;
export type RewindAnswer = z.output<typeof RewindAnswerSchema>;
export type DeadLetterList = z.output<typeof DeadLetterListSchema>;
export type Job = z.output<typeof JobSchema>;
export type LedgerAnswer = z.output<typeof LedgerAnswerSchema>;
export type EventTypeList = z.output<typeof EventTypeListSchema>;
export type AuditList = z.output<typeof AuditListSchema>;
export type LeaseAnswer = z.output<typeof LeaseAnswerSchema>;
export type AckAnswer = z.output<typeof AckAnswerSchema>;
export type NackAnswer = z.output<typeof NackAnswerSchema>;
/** A lease as asked: `max` events (1–1000), `wait` s for the first (0–30), held `lease` s (5–600). */
export type LeaseOptions = Partial<z.output<typeof LeaseQuery>>;
/** A lease's events to acknowledge: by `cursors`, by `eventIds`, or (neither) all. */
export type AckOptions = z.input<typeof AckBody>;
/** As AckOptions, with `delayMs` to send them down the retry schedule instead of back at once. */
export type NackOptions = z.input<typeof NackBody>;

/** A definition as `PUT /v1/subscribers/{name}` (and `subscribers apply`) takes it. */
export type SubscriberDefinition = z.input<typeof PutBody>;
export type PauseOptions = NonNullable<z.input<typeof PauseBody>>;
export type RotateOptions = NonNullable<z.input<typeof RotateBody>>;
/** Where a rewind goes (`to`), and whether it only counts (`dryRun`). */
export type RewindOptions = z.input<typeof RewindBody>;
/** Which dead letters to replay, and how (a dry run; again). */
export type ReplayOptions = z.input<typeof ReplayBody>;

/** A page of subscribers: how many (1 to 1,000; 100 by default), after which name. */
export type ListOptions = Partial<z.output<typeof ListQuery>>;
/** The dead letters a list selects (the query's lists as arrays; the client joins them). */
export type DeadLetterSelection = Partial<z.output<typeof DeadLetterQuery>>;
export type AuditOptions = Partial<z.output<typeof AuditQuery>>;

export interface DeleteOptions {
  /** Operator only: also delete the group, tiers and DLQ, and free the name. */
  readonly purge?: boolean;
  /** The ETag the subscriber must still have (412 precondition_failed otherwise). */
  readonly ifMatch?: string;
}

export interface PutOptions {
  /** The ETag the subscriber must still have (`*`: it must exist). */
  readonly ifMatch?: string;
}

export type MessageList = z.output<typeof MessageListSchema>;
export type MessageDetail = z.output<typeof MessageDetailSchema>;
export type MessagePayload = z.output<typeof MessagePayloadSchema>;
export type ResendAnswer = z.output<typeof ResendAnswerSchema>;
export type SendExampleAnswer = z.output<typeof SendExampleAnswerSchema>;
/** Which messages (lists as arrays; the client joins them); the operator names the tenant. */
export type MessageOptions = Partial<z.output<typeof MessageQuery>>;
/** One message: the operator names the tenant; only these endpoints' attempts when named. */
export type MessageGetOptions = Pick<MessageOptions, 'tenant' | 'subscriber'>;

/** A link as `POST /v1/portal-links` takes it (operator tokens only). */
export type PortalLinkRequest = z.input<typeof PortalLinkRequestSchema>;
export type MintedPortalLink = z.output<typeof MintedPortalLinkSchema>;
export type PortalLinkList = z.output<typeof PortalLinkListSchema>;
export type RevokedPortalLink = z.output<typeof RevokedPortalLinkSchema>;
/** Which links: a tenant's, active ones (default) or all, a page at a time. */
export type PortalLinkOptions = Partial<z.output<typeof PortalLinkQuery>>;
