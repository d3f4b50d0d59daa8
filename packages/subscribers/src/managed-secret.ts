import { randomBytes } from 'node:crypto';
import type { ManagedSecretState } from '@hookstream/contracts';
import { parseSigningSecret } from '@hookstream/delivery';
import { CatalogError } from './catalog-error.ts';
import { openSecret, sealSecret } from './secret-box.ts';
import type { SecretsKey } from './secrets-key.ts';

/** How long a rotated-out secret keeps signing, unless the operator says otherwise. */
export const DEFAULT_ROTATION_GRACE_MS = 24 * 3_600_000;
/** A longer grace would keep a leaked secret valid for too long; a month is plenty to roll out. */
export const MAX_ROTATION_GRACE_MS = 30 * 24 * 3_600_000;
/** Previous secrets kept at most (the contract's bound), newest first. */
const MAX_PREVIOUS = 10;

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the spec allows 24–64). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A fresh managed secret, sealed. */
export function newManagedSecret(
  key: SecretsKey,
  subscriber: string,
  now: Date,
  generate: () => string = generateSigningSecret,
): ManagedSecretState {
  return { managed: true, current: sealSecret(key, subscriber, generate(), now), previous: [] };
}

/**
 * A new current secret; the old one keeps signing until now + graceMs (0: dropped at once).
 * Expired previous secrets are dropped. The current one is opened first, so a wrong key fails
 * here rather than leave a record with secrets sealed under two keys.
 */
export function rotateManagedSecret(
  key: SecretsKey,
  subscriber: string,
  state: ManagedSecretState,
  options: { readonly now: Date; readonly graceMs: number; readonly generate?: () => string },
): ManagedSecretState {
  const { now, graceMs } = options;
  if (!Number.isInteger(graceMs) || graceMs < 0 || graceMs > MAX_ROTATION_GRACE_MS)
    throw new CatalogError(
      'BAD_OPTION',
      `the grace period must be between 0 and ${MAX_ROTATION_GRACE_MS / 86_400_000} days`,
      false,
    );
  openSecret(key, subscriber, state.current);
  const still = state.previous.filter((p) => Date.parse(p.expiresAt) > now.getTime());
  const kept =
    graceMs === 0
      ? still
      : [{ secret: state.current, expiresAt: new Date(now.getTime() + graceMs).toISOString() }, ...still];
  return {
    managed: true,
    current: sealSecret(key, subscriber, (options.generate ?? generateSigningSecret)(), now),
    previous: kept.slice(0, MAX_PREVIOUS),
  };
}

/** The managed secrets in clear text (for `secret show`), the expired ones left out. */
export function revealManagedSecret(
  key: SecretsKey,
  subscriber: string,
  state: ManagedSecretState,
  now: Date,
): { current: string; createdAt: string; previous: { secret: string; expiresAt: string }[] } {
  const current = checked(subscriber, openSecret(key, subscriber, state.current));
  const previous = state.previous
    .filter((p) => Date.parse(p.expiresAt) > now.getTime())
    .map((p) => ({
      secret: checked(subscriber, openSecret(key, subscriber, p.secret)),
      expiresAt: p.expiresAt,
    }));
  return { current, createdAt: state.current.createdAt, previous };
}

/** An authenticated plaintext that is not a signing secret is still refused, never used. */
function checked(subscriber: string, secret: string): string {
  try {
    parseSigningSecret(secret);
  } catch (err) {
    throw new CatalogError(
      'BAD_SECRET',
      `the managed secret of "${subscriber}": ${(err as Error).message}`,
      false,
    );
  }
  return secret;
}
