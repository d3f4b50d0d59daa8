import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptedSecret } from '@hookstream/contracts';
import { CatalogError } from './catalog-error.ts';
import type { SecretsKey } from './secrets-key.ts';

/**
 * The subscriber's name is authenticated with the ciphertext, so a sealed secret copied into
 * another subscriber's record does not open there.
 */
function associatedData(subscriber: string): Buffer {
  return Buffer.from(`hookstream.subscriber-secret.v1:${subscriber}`, 'utf8');
}

/** Seals a secret with AES-256-GCM under a fresh random 96-bit IV. */
export function sealSecret(
  key: SecretsKey,
  subscriber: string,
  plaintext: string,
  now: Date,
): EncryptedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(associatedData(subscriber));
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
 * authenticate (GCM's tag covers the ciphertext and the subscriber's name).
 */
export function openSecret(key: SecretsKey, subscriber: string, sealed: EncryptedSecret): string {
  if (sealed.keyId !== key.id)
    throw new CatalogError(
      'WRONG_SECRETS_KEY',
      `the secret of "${subscriber}" was sealed under secrets key ${sealed.keyId}, but the key given is ${key.id}`,
      false,
    );
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(associatedData(subscriber));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new CatalogError(
      'SECRET_UNREADABLE',
      `the sealed secret of "${subscriber}" does not authenticate under key ${key.id}: it was altered, or copied from another subscriber's record`,
      false,
    );
  }
}
