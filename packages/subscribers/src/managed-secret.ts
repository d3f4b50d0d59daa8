import { randomBytes } from 'node:crypto';
import type { ManagedSecretState } from '@hookstream/contracts';
import { parseSigningSecret } from '@hookstream/delivery';
import { CatalogError } from './catalog-error.ts';
import {
  openSecret,
  opens,
  requireCurrentBinding,
  type SealBinding,
  SIGNING,
  sealSecret,
} from './secret-box.ts';
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
  binding: SealBinding,
  now: Date,
  generate: () => string = generateSigningSecret,
): ManagedSecretState {
  return { managed: true, current: sealSecret(key, binding, SIGNING, generate(), now), previous: [] };
}

/**
 * A new current secret; the old one keeps signing until now + graceMs (0: dropped at once),
 * sealed again with that expiry bound, so nobody without the key can extend it. Expired previous
 * secrets are dropped. The current one is opened first, so a wrong key fails here rather than
 * leave a record with secrets sealed under two keys.
 */
export function rotateManagedSecret(
  key: SecretsKey,
  binding: SealBinding,
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
  requireCurrentBinding(binding);
  const old = openSecret(key, binding, SIGNING, state.current);
  const still = state.previous.filter((p) => Date.parse(p.expiresAt) > now.getTime());
  const expiresAt = new Date(now.getTime() + graceMs).toISOString();
  const kept =
    graceMs === 0
      ? still
      : [
          { secret: sealSecret(key, binding, { kind: 'previous', expiresAt }, old, now), expiresAt },
          ...still,
        ];
  return {
    managed: true,
    current: sealSecret(key, binding, SIGNING, (options.generate ?? generateSigningSecret)(), now),
    previous: kept.slice(0, MAX_PREVIOUS),
  };
}

/** The managed secrets in clear text (for `secret show`, and the fleet's keys), the expired ones left out. */
export function revealManagedSecret(
  key: SecretsKey,
  binding: SealBinding,
  state: ManagedSecretState,
  now: Date,
): { current: string; createdAt: string; previous: { secret: string; expiresAt: string }[] } {
  requireCurrentBinding(binding);
  return openAll(key, binding, state, now);
}

/**
 * The same secrets sealed for another binding: a version-1 record's (name only) moved to
 * version 2, or to a new URL origin. The expired previous ones are dropped. Seals that already
 * open for `to` are returned as they are (a URL set back to the origin they were made for).
 */
export function resealManagedSecret(
  key: SecretsKey,
  from: SealBinding,
  to: SealBinding,
  state: ManagedSecretState,
  now: Date,
): ManagedSecretState {
  if (opens(() => openAll(key, to, state, now))) return state;
  const open = openAll(key, from, state, now);
  return {
    managed: true,
    // The current seal keeps its date: it says when the secret was made, not when it was sealed.
    current: { ...sealSecret(key, to, SIGNING, open.current, now), createdAt: open.createdAt },
    previous: open.previous.map((p) => ({
      secret: sealSecret(key, to, { kind: 'previous', expiresAt: p.expiresAt }, p.secret, now),
      expiresAt: p.expiresAt,
    })),
  };
}

function openAll(key: SecretsKey, binding: SealBinding, state: ManagedSecretState, now: Date) {
  const name = binding.subscriber;
  const current = checked(name, openSecret(key, binding, SIGNING, state.current));
  const previous = state.previous
    .filter((p) => Date.parse(p.expiresAt) > now.getTime())
    .map((p) => ({
      secret: checked(name, openSecret(key, binding, { kind: 'previous', expiresAt: p.expiresAt }, p.secret)),
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
