import { z } from 'zod';
import { TenantId } from './envelope.ts';
import { SubscriberName } from './topics.ts';

/**
 * Every change to a subscriber, one record each: who, what, a digest of the catalog record
 * before and after, and when. One partition (one order for every subscriber), not compacted
 * (each change stays, not only the last), kept AUDIT_RETENTION_MS. Keyed by the subscriber's
 * name; a subscriber of a tenant's record carries it as `ce_tenant`, as notices do, so a
 * tenant's reader can skip others' records before decoding them.
 */
export const AUDIT_TOPIC = 'hookstream.audit';

/** How long the trail is kept: a year, long enough for a yearly review. */
export const AUDIT_RETENTION_MS = 365 * 24 * 3_600_000;

/**
 * What changed. `subscriber.purged`: a delete with --purge (the group, topics and name went too);
 * `subscriber.disabled`: hookstream's own (410 Gone, sustained failure). `subscriber.secret_read`
 * is the one read: a managed secret shown in clear (the management API's `GET …/secret`) changes
 * nothing, so its `before` and `after` are both the record's digest and the chain holds.
 */
export const AUDIT_ACTIONS = [
  'subscriber.created',
  'subscriber.updated',
  'subscriber.deleted',
  'subscriber.purged',
  'subscriber.paused',
  'subscriber.resumed',
  'subscriber.disabled',
  'subscriber.secret_rotated',
  'subscriber.secret_read',
  'subscriber.header_sealed',
  'subscriber.credential_sealed',
  'subscriber.resealed',
  'subscriber.rewound',
  'dead_letters.replayed',
  'message.resent',
  'example.sent',
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

/**
 * Who did it: an OS user at the CLI or the console (`user`: os.userInfo().username, or the
 * console's `by`), a management API token (`token`, with its tenant when bound to one), or
 * hookstream itself (`system`: the component and its instance, e.g. a pusher's auto-disable), or
 * a customer portal link (`portal`: the link, its tenant, and the customer's user when named).
 * `message.resent` and `example.sent` change no record: their `before` and `after` are the
 * subscriber record's digest, as `subscriber.secret_read`'s are.
 */
export const AuditActor = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('user'), user: z.string().min(1).max(200) }),
  z.object({
    kind: z.literal('token'),
    tokenId: z.string().min(1).max(200),
    tenant: TenantId.optional(),
  }),
  z.object({
    kind: z.literal('portal'),
    linkId: z.string().min(1).max(100),
    tenant: TenantId,
    /** The customer's user when the backend that minted the link named one. */
    user: z.string().min(1).max(200).optional(),
  }),
  z.object({
    kind: z.literal('system'),
    component: z.string().min(1).max(100),
    instance: z.string().min(1).max(200).optional(),
  }),
]);
export type AuditActor = z.infer<typeof AuditActor>;

/** `sha256:` and the hex SHA-256 of the catalog record's canonical JSON (sorted keys). */
export const AuditDigest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 hex digits>');
export type AuditDigest = z.infer<typeof AuditDigest>;

/** Small facts about the change (a replay's counts, a purge's topics): bounded, never a secret. */
export const AuditDetail = z
  .record(
    z.string().min(1).max(64),
    z.union([
      z.string().max(1000),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(z.union([z.string().max(300), z.number()])).max(100),
    ]),
  )
  .refine((d) => Object.keys(d).length <= 20, 'at most 20 detail fields');
export type AuditDetail = z.infer<typeof AuditDetail>;

export const AuditRecord = z.object({
  version: z.literal(1),
  /** Unique per record (a uuid). */
  id: z.uuid(),
  /** When the change was made (written after it was durable). */
  at: z.iso.datetime({ offset: true }),
  actor: AuditActor,
  action: AuditAction,
  subscriber: SubscriberName,
  /** The subscriber's tenant; absent for a subscriber of none. */
  tenant: TenantId.optional(),
  /** The catalog record before the change; null when there was none (created). */
  before: AuditDigest.nullable(),
  /** The catalog record after it; null when there is none (deleted, purged). */
  after: AuditDigest.nullable(),
  detail: AuditDetail.optional(),
});
export type AuditRecord = z.infer<typeof AuditRecord>;
