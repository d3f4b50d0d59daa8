import {
  type PortalLink,
  type PortalLinkRequest,
  type PortalLinkView,
  portalLinkState,
  portalLinkView,
} from '@hookstream/contracts';
import { linkToken, newLinkCredentials, parseLinkToken, secretDigest, secretMatches } from './link-secret.ts';

/** Where links are kept: the compacted links topic in production, an array in unit tests. */
export interface LinkLog {
  /** Resolves once the record is durable. */
  append(link: PortalLink): Promise<void>;
  /** Removes a link for good (a tombstone): for links long expired. */
  remove(id: string): Promise<void>;
}

/** An expired or revoked link is listed this long, then removed from the topic. */
export const LINK_KEPT_AFTER_END_MS = 7 * 24 * 3_600_000;

export interface MintedLink {
  readonly link: PortalLink;
  /** The path segment of its URL: the only place its secret is. */
  readonly token: string;
}

/**
 * Every portal link, folded from the links topic. A mint or revoke is written, then applied
 * here at once, so this instance answers by it before the topic delivers it back; others learn
 * it from the topic. A revocation is final: a record without one never undoes it.
 */
export class PortalLinkBook {
  readonly #log: LinkLog;
  readonly #now: () => number;
  readonly #links = new Map<string, PortalLink>();

  constructor(log: LinkLog, now: () => number = Date.now) {
    this.#log = log;
    this.#now = now;
  }

  /** A record from the topic; null: its tombstone. */
  learn(id: string, link: PortalLink | null): void {
    if (link === null) {
      this.#links.delete(id);
      return;
    }
    const known = this.#links.get(id);
    if (known?.revokedAt !== undefined && link.revokedAt === undefined) return;
    this.#links.set(id, link);
  }

  async mint(request: PortalLinkRequest, by: string): Promise<MintedLink> {
    const { id, secret } = newLinkCredentials();
    const now = this.#now();
    const link: PortalLink = {
      version: 1,
      id,
      tenant: request.tenant,
      scope: request.scope,
      ...(request.subscribers === undefined ? {} : { subscribers: [...new Set(request.subscribers)].sort() }),
      ...(request.eventTypes === undefined ? {} : { eventTypes: [...new Set(request.eventTypes)].sort() }),
      ...(request.user === undefined ? {} : { user: request.user }),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + request.lifetimeSeconds * 1000).toISOString(),
      createdBy: by,
      secretDigest: secretDigest(secret),
    };
    await this.#log.append(link);
    this.learn(id, link);
    return { link, token: linkToken(id, secret) };
  }

  /** The link after its revocation; null when there is no such link. Revoking twice changes nothing. */
  async revoke(id: string, by: string): Promise<PortalLink | null> {
    const known = this.#links.get(id);
    if (known === undefined) return null;
    if (known.revokedAt !== undefined) return known;
    const revoked: PortalLink = { ...known, revokedAt: new Date(this.#now()).toISOString(), revokedBy: by };
    await this.#log.append(revoked);
    this.learn(id, revoked);
    return revoked;
  }

  get(id: string): PortalLinkView | null {
    const link = this.#links.get(id);
    return link === undefined ? null : portalLinkView(link, this.#now());
  }

  /** Newest first; `all` includes expired and revoked links still kept. */
  list(filter: { readonly tenant?: string | undefined; readonly state: 'active' | 'all' }): PortalLinkView[] {
    const now = this.#now();
    return [...this.#links.values()]
      .filter((l) => filter.tenant === undefined || l.tenant === filter.tenant)
      .filter((l) => filter.state === 'all' || portalLinkState(l, now) === 'active')
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
      .map((l) => portalLinkView(l, now));
  }

  /** The active link a URL's token opens, or null (unknown, wrong secret, expired, revoked). */
  open(token: string): PortalLink | null {
    const parts = parseLinkToken(token);
    if (parts === null) return null;
    const link = this.#links.get(parts.id);
    if (link === undefined || !secretMatches(parts.secret, link.secretDigest)) return null;
    return portalLinkState(link, this.#now()) === 'active' ? link : null;
  }

  /** Removes links that ended (expired or revoked) more than LINK_KEPT_AFTER_END_MS ago. */
  async sweep(): Promise<number> {
    const now = this.#now();
    const old = [...this.#links.values()].filter((l) => {
      const ended = l.revokedAt === undefined ? Date.parse(l.expiresAt) : Date.parse(l.revokedAt);
      return ended + LINK_KEPT_AFTER_END_MS < now;
    });
    for (const link of old) {
      await this.#log.remove(link.id);
      this.learn(link.id, null);
    }
    return old.length;
  }
}
