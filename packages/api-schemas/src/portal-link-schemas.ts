import { PortalLinkId, PortalLinkView, TenantId } from '@hookstream/contracts';
import { z } from 'zod';

// The portal links' routes (`/v1/portal-links`, operator tokens only). The mint's body is the
// contracts' PortalLinkRequest and its answer MintedPortalLink; these are the rest.

export const MAX_PORTAL_LINK_PAGE = 1000;

export const PortalLinkParams = z.object({ id: PortalLinkId });

/** `GET /v1/portal-links`: the active ones by default, `all` with the expired and revoked. */
export const PortalLinkQuery = z.object({
  tenant: TenantId.optional(),
  state: z.enum(['active', 'all']).default('active'),
  limit: z.coerce.number().int().min(1).max(MAX_PORTAL_LINK_PAGE).default(100),
  /** `nextCursor` of the page before: the link id after which this page starts. */
  cursor: PortalLinkId.optional(),
});

export const PortalLinkList = z.object({
  items: z.array(PortalLinkView),
  nextCursor: PortalLinkId.nullable(),
});
export type PortalLinkList = z.infer<typeof PortalLinkList>;

/** `DELETE /v1/portal-links/{id}`: the link as it is now (revoked). */
export const RevokedPortalLink = z.object({ link: PortalLinkView });
export type RevokedPortalLink = z.infer<typeof RevokedPortalLink>;
