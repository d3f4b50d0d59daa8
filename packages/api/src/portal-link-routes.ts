import {
  ErrorBody,
  NoParams,
  PortalLinkList,
  PortalLinkParams,
  PortalLinkQuery,
  RevokedPortalLink,
} from '@hookstream/api-schemas';
import {
  MintedPortalLink,
  type PortalLink,
  PortalLinkRequest,
  type PortalLinkView,
  portalLinkView,
  TenantErasure,
  TenantId,
} from '@hookstream/contracts';
import { type Caller, ManagementError } from '@hookstream/management';
import { z } from 'zod';
import { defineRoute, type ResponseSpec, type Route } from './route.ts';

/** Where the API keeps portal links and tenants' erasures: the portal's links topic. */
export interface PortalLinksPort {
  mint(
    request: PortalLinkRequest,
    by: string,
  ): Promise<{ readonly link: PortalLink; readonly token: string }>;
  revoke(id: string, by: string): Promise<PortalLink | null>;
  /** Erases a tenant's messages from every API instance's index (a data deletion request). */
  erase(tenant: string, by: string): Promise<TenantErasure>;
  list(filter: { readonly tenant?: string | undefined; readonly state: 'active' | 'all' }): PortalLinkView[];
}

const ok = (description: string, schema: z.ZodType): ResponseSpec => ({ description, schema });
const operatorOnly = ok('A tenant token: links are minted by the platform’s backend only', ErrorBody);

/** Links are the operator's: the platform's backend mints them for its customers. */
function requireOperator(caller: Caller): void {
  if (caller.scope.kind !== 'operator')
    throw new ManagementError('forbidden', 'portal links are minted and listed by an operator token only');
}

/**
 * The portal link routes. `portalUrl` is where the portal is reached from a customer's browser
 * (the API's public URL): a minted link's URL starts with it.
 */
export function portalLinkRoutes(links: PortalLinksPort, portalUrl: () => string): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/portal-links',
      operationId: 'createPortalLink',
      summary:
        'A short-lived link that opens the customer portal as one tenant, within a scope (read or manage) and optional endpoint and type limits; its URL is shown only here',
      params: NoParams,
      query: NoParams,
      body: PortalLinkRequest,
      responses: {
        201: ok('The link, and the URL that opens it', MintedPortalLink),
        403: operatorOnly,
        422: ok('invalid_body', ErrorBody),
      },
      handle: async ({ caller, body }) => {
        requireOperator(caller);
        const { link, token } = await links.mint(body, caller.id);
        const url = `${portalUrl().replace(/\/+$/, '')}/portal/${token}/`;
        return { status: 201, body: { link: portalLinkView(link, Date.now()), url } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/portal-links',
      operationId: 'listPortalLinks',
      summary:
        'Portal links, newest first: the active ones, or all still kept (state=all); never their secrets',
      params: NoParams,
      query: PortalLinkQuery,
      responses: { 200: ok('The links', PortalLinkList), 403: operatorOnly },
      handle: async ({ caller, query }) => {
        requireOperator(caller);
        const all = links.list({ tenant: query.tenant, state: query.state });
        // Newest first; the cursor is the last id of the page before (gone since: from the start).
        const after = query.cursor === undefined ? 0 : all.findIndex((l) => l.id === query.cursor) + 1;
        const items = all.slice(after, after + query.limit);
        const more = after + query.limit < all.length;
        return { status: 200, body: { items, nextCursor: more ? (items.at(-1)?.id ?? null) : null } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/portal-links/{id}',
      operationId: 'revokePortalLink',
      summary: 'Revokes a link: it opens nothing from now on, on every API instance within a moment',
      params: PortalLinkParams,
      query: NoParams,
      responses: {
        200: ok('The link, revoked', RevokedPortalLink),
        403: operatorOnly,
        404: ok('No such link', ErrorBody),
      },
      handle: async ({ caller, params }) => {
        requireOperator(caller);
        const link = await links.revoke(params.id, caller.id);
        if (link === null) throw new ManagementError('not_found', `no portal link "${params.id}"`);
        return { status: 200, body: { link: portalLinkView(link, Date.now()) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/tenants/{tenant}/messages',
      operationId: 'eraseTenantMessages',
      summary:
        "Erases a tenant's messages and attempts from every portal index (a data deletion request); the attempt log and events topic keep theirs until their retention",
      params: z.object({ tenant: TenantId }),
      query: NoParams,
      responses: {
        200: ok('The erasure, as every API instance applies it', TenantErasure),
        403: operatorOnly,
      },
      handle: async ({ caller, params }) => {
        requireOperator(caller);
        return { status: 200, body: await links.erase(params.tenant, caller.id) };
      },
    }),
  ];
}
