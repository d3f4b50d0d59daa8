import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new link's id and secret: the id is public (lists, audit), the secret only in the URL. */
export function newLinkCredentials(): { readonly id: string; readonly secret: string } {
  let id = 'pl_';
  while (id.length < 23) {
    // 248 = 62 × 4: bytes past it are drawn again, so every character is as likely.
    for (const b of randomBytes(24)) if (b < 248 && id.length < 23) id += ID_ALPHABET[b % 62];
  }
  return { id, secret: randomBytes(32).toString('base64url') };
}

export function secretDigest(secret: string): string {
  return `sha256:${createHash('sha256').update(secret).digest('hex')}`;
}

/** The path segment a link's URL carries: its id and secret. */
export function linkToken(id: string, secret: string): string {
  return `${id}.${secret}`;
}

/** A path segment split into id and secret, or null when it is not a link's shape. */
export function parseLinkToken(token: string): { readonly id: string; readonly secret: string } | null {
  const match = /^(pl_[A-Za-z0-9]{20})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (match === null) return null;
  return { id: match[1] as string, secret: match[2] as string };
}

/** Whether `secret` is the one `digest` was made of, in time independent of where they differ. */
export function secretMatches(secret: string, digest: string): boolean {
  const given = Buffer.from(secretDigest(secret));
  const kept = Buffer.from(digest);
  return given.length === kept.length && timingSafeEqual(given, kept);
}

/**
 * The CSRF token a link's forms carry: derived from its secret, so any API instance can check it
 * without a session store, and no page of another origin can know it.
 */
export function csrfTokenOf(secret: string): string {
  return createHash('sha256').update(`csrf:${secret}`).digest('base64url').slice(0, 32);
}
