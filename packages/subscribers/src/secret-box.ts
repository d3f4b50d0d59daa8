import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type EncryptedSecret, type SubscriberRecord, sealOriginOf } from '@hookstream/contracts';
import { CatalogError } from './errors.ts';
import type { SecretsKey } from './secrets-key.ts';

/**
 * What a seal is bound to. GCM authenticates this with the ciphertext, so a seal opens only
 * for the subscriber and the origin it was made for: one copied into another subscriber's
 * record, or left in a record whose URL a catalog writer pointed elsewhere, does not open.
 */
export interface SealBinding {
  /**
   * The sealing rule: version 1 bound the name only; 2 is every later record version's (a
   * record version that adds definition fields keeps version 2's seals).
   */
  readonly version: 1 | 2;
  readonly subscriber: string;
  /** The origin of the subscriber's URL (`https://host:port`), bound from version 2 on. */
  readonly origin: string;
}

/**
 * What one seal holds, bound too (version 2), so a seal cannot change its role: a rotated-out
 * secret made current again, its expiry moved later, a header value used as the signing secret.
 */
export type SealRole =
  | { readonly kind: 'signing' }
  | { readonly kind: 'previous'; readonly expiresAt: string }
  | { readonly kind: 'header'; readonly name: string }
  /**
   * A managed outbound credential; `to` is the origin it is sent to when that is not the URL's
   * (the OAuth2 client secret goes to the token URL), so a moved token URL does not get it.
   */
  | { readonly kind: 'credential'; readonly name: string; readonly to?: string | undefined };

export const SIGNING: SealRole = { kind: 'signing' };

/** The binding a record's seals must have: its version, name and URL origin. */
export function sealBindingOf(record: SubscriberRecord): SealBinding {
  return {
    version: record.version === 1 ? 1 : 2,
    subscriber: record.definition.name,
    origin: sealOriginOf(record.definition),
  };
}

function associatedData(binding: SealBinding, role: SealRole): Buffer {
  if (binding.version === 1)
    return Buffer.from(`hookstream.subscriber-secret.v1:${binding.subscriber}`, 'utf8');
  const what =
    role.kind === 'signing'
      ? 'signing'
      : role.kind === 'previous'
        ? `previous:${role.expiresAt}`
        : role.kind === 'header'
          ? `header:${role.name}`
          : `credential:${role.name}${role.to === undefined ? '' : ` to ${role.to}`}`;
  // A JSON array: no choice of name or origin can make two different bindings the same text.
  return Buffer.from(
    JSON.stringify(['hookstream.seal.v2', binding.subscriber, binding.origin, what]),
    'utf8',
  );
}

/** Seals a secret with AES-256-GCM under a fresh random 96-bit IV, always with version 2's binding. */
export function sealSecret(
  key: SecretsKey,
  binding: SealBinding,
  role: SealRole,
  plaintext: string,
  now: Date,
): EncryptedSecret {
  if (binding.version !== 2) throw new Error('seals are made with the version 2 binding only');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(associatedData(binding, role));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    alg: 'A256GCM',
    keyId: key.id,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    createdAt: now.toISOString(),
  };
}

/**
 * Opens a sealed secret, or fails with a coded error: never returns bytes that did not
 * authenticate (GCM's tag covers the ciphertext and the binding).
 */
export function openSecret(
  key: SecretsKey,
  binding: SealBinding,
  role: SealRole,
  sealed: EncryptedSecret,
): string {
  const name = binding.subscriber;
  if (sealed.keyId !== key.id)
    throw new CatalogError(
      'WRONG_SECRETS_KEY',
      `the secret of "${name}" was sealed under secrets key ${sealed.keyId}, but the key given is ${key.id}`,
      false,
    );
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(associatedData(binding, role));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new CatalogError(
      'SECRET_UNREADABLE',
      binding.version === 1
        ? `the sealed secret of "${name}" does not authenticate under key ${key.id}: it was altered, or copied from another subscriber's record`
        : `a sealed value of "${name}" does not authenticate under key ${key.id} for ${binding.origin}: it was altered, copied from another record or role, or the URL's origin changed without apply`,
      false,
    );
  }
}

/**
 * Refuses a version-1 binding: its seals bind the name only, so a catalog writer could point
 * the URL elsewhere and still have requests signed. Only `subscribers reseal` opens them.
 */
export function requireCurrentBinding(binding: SealBinding): SealBinding {
  if (binding.version !== 1) return binding;
  throw new CatalogError(
    'OLD_SEAL',
    `the record of "${binding.subscriber}" was sealed by an earlier hookstream (bound to its name only, not its URL): run hookstream subscribers reseal --all (docs/deployment.md, "Upgrading")`,
    false,
  );
}

/** Whether opening succeeds; a wrong key is still an error (it opens nothing anywhere). */
export function opens(open: () => unknown): boolean {
  try {
    open();
    return true;
  } catch (err) {
    if (err instanceof CatalogError && err.code === 'SECRET_UNREADABLE') return false;
    throw err;
  }
}
