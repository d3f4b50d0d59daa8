import { z } from 'zod';
import { EventTypeName, TenantId } from './envelope.ts';
import { SubscriberName } from './topics.ts';

/**
 * The customer portal's links (docs/portal.md): one compacted record per link, keyed by its id,
 * so every API instance knows every link and its revocation. One partition: links are few and
 * small, and one order makes a revoke follow its mint everywhere.
 */
export const PORTAL_LINKS_TOPIC = 'hookstream.portal-links';

/** What a link may do: read everything of its tenant within its limits, or also change it. */
export const PortalScope = z.enum(['read', 'manage']);
export type PortalScope = z.infer<typeof PortalScope>;

/** A link's public id; its secret is never stored, only a digest of it. */
export const PortalLinkId = z.string().regex(/^pl_[A-Za-z0-9]{20}$/, 'pl_ and 20 letters or digits');
export type PortalLinkId = z.infer<typeof PortalLinkId>;

export const PORTAL_LINK_MIN_SECONDS = 60;
export const PORTAL_LINK_MAX_SECONDS = 7 * 24 * 3600;
export const PORTAL_LINK_DEFAULT_SECONDS = 3600;

/** What the platform's backend asks for (`POST /v1/portal-links`, operator tokens only). */
export const PortalLinkRequest = z.strictObject({
  tenant: TenantId,
  scope: PortalScope.default('read'),
  /** Only these endpoints (subscribers) of the tenant; absent: all of them, and it may create more. */
  subscribers: z.array(SubscriberName).min(1).max(100).optional(),
  /** Only events of these types, and endpoints may take only these; absent: every type. */
  eventTypes: z.array(EventTypeName).min(1).max(100).optional(),
  /** The customer's user, as the minting backend knows them: named in every audit record. */
  user: z.string().min(1).max(200).optional(),
  lifetimeSeconds: z
    .number()
    .int()
    .min(PORTAL_LINK_MIN_SECONDS)
    .max(PORTAL_LINK_MAX_SECONDS)
    .default(PORTAL_LINK_DEFAULT_SECONDS),
});
export type PortalLinkRequest = z.infer<typeof PortalLinkRequest>;

/** A link as the topic keeps it (version 1). */
export const PortalLink = z.object({
  version: z.literal(1),
  id: PortalLinkId,
  tenant: TenantId,
  scope: PortalScope,
  subscribers: z.array(SubscriberName).max(100).optional(),
  eventTypes: z.array(EventTypeName).max(100).optional(),
  user: z.string().min(1).max(200).optional(),
  createdAt: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }),
  /** The operator token's id that minted it. */
  createdBy: z.string().min(1).max(200),
  revokedAt: z.iso.datetime({ offset: true }).optional(),
  revokedBy: z.string().min(1).max(200).optional(),
  /** `sha256:` and the hex SHA-256 of the link's secret. */
  secretDigest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});
export type PortalLink = z.infer<typeof PortalLink>;

export const PortalLinkState = z.enum(['active', 'expired', 'revoked']);
export type PortalLinkState = z.infer<typeof PortalLinkState>;

/** A link as the API shows it: never its secret nor the secret's digest. */
export const PortalLinkView = PortalLink.omit({ secretDigest: true, version: true }).extend({
  state: PortalLinkState,
});
export type PortalLinkView = z.infer<typeof PortalLinkView>;

/** The answer to a mint: the only time the link's URL (holding its secret) is shown. */
export const MintedPortalLink = z.object({
  link: PortalLinkView,
  /** Open this (or frame it) to enter the portal as the tenant. */
  url: z.string().min(1).max(2000),
});
export type MintedPortalLink = z.infer<typeof MintedPortalLink>;

/** The link's state at `nowMs`. */
export function portalLinkState(link: PortalLink, nowMs: number): PortalLinkState {
  if (link.revokedAt !== undefined) return 'revoked';
  return Date.parse(link.expiresAt) <= nowMs ? 'expired' : 'active';
}

export function portalLinkView(link: PortalLink, nowMs: number): PortalLinkView {
  const { secretDigest: _digest, version: _version, ...shown } = link;
  return { ...shown, state: portalLinkState(link, nowMs) };
}

/**
 * A tenant's messages erased from every portal index (a data deletion request): kept in the links
 * topic under `erasure:<tenant>`, so every API instance, and any index built later from the attempt
 * log's retention, drops the tenant's messages that began at or before `at`.
 */
export const TenantErasure = z.object({
  version: z.literal(1),
  tenant: TenantId,
  at: z.iso.datetime({ offset: true }),
  /** The operator token's id that asked. */
  by: z.string().min(1).max(200),
});
export type TenantErasure = z.infer<typeof TenantErasure>;

const ERASURE_KEY_PREFIX = 'erasure:';

export function tenantErasureKey(tenant: string): string {
  return `${ERASURE_KEY_PREFIX}${tenant}`;
}

/** Whether a links topic record's key is a tenant's erasure (else a link's id). */
export function isTenantErasureKey(key: string): boolean {
  return key.startsWith(ERASURE_KEY_PREFIX);
}
