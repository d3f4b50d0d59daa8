import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CatalogError } from './errors.ts';

/** The key that seals managed secrets, and its fingerprint (stored next to what it sealed). */
export interface SecretsKey {
  readonly key: Buffer;
  readonly id: string;
}

export const SECRETS_KEY_ENV = 'HOOKSTREAM_SECRETS_KEY';

/** A 32-byte AES-256 key from its base64 text (`openssl rand -base64 32`). */
export function parseSecretsKey(text: string, source: string): SecretsKey {
  const encoded = text.trim();
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length !== 32)
    throw new CatalogError(
      'BAD_SECRETS_KEY',
      `${source} must be the base64 of exactly 32 random bytes (openssl rand -base64 32), got ${key.length === 0 ? 'no base64' : `${key.length} bytes`}`,
      false,
    );
  return { key, id: secretsKeyId(key) };
}

/**
 * A fingerprint that tells keys apart without revealing them (a SHA-256 prefix of a random
 * 256-bit key), so "sealed under another key" is reported as such, not as tampering.
 */
export function secretsKeyId(key: Buffer): string {
  return createHash('sha256').update('hookstream-secrets-key').update(key).digest('hex').slice(0, 16);
}

/** The key from `--secrets-key-file` when given, else HOOKSTREAM_SECRETS_KEY; undefined when neither. */
export async function loadSecretsKey(options: {
  readonly keyFile?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
}): Promise<SecretsKey | undefined> {
  if (options.keyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(options.keyFile, 'utf8');
    } catch (err) {
      throw new CatalogError(
        'NO_SECRETS_KEY',
        `cannot read the secrets key file ${options.keyFile}: ${(err as Error).message}`,
        false,
      );
    }
    return parseSecretsKey(text, `the secrets key file ${options.keyFile}`);
  }
  const value = (options.env ?? process.env)[SECRETS_KEY_ENV];
  if (value === undefined || value.trim() === '') return undefined;
  return parseSecretsKey(value, SECRETS_KEY_ENV);
}

/** The key, or a clear error naming both ways of giving it. */
export function requireSecretsKey(key: SecretsKey | undefined, why: string): SecretsKey {
  if (key === undefined)
    throw new CatalogError(
      'NO_SECRETS_KEY',
      `${why} needs the secrets key: set ${SECRETS_KEY_ENV} (base64 of 32 bytes) or pass --secrets-key-file`,
      false,
    );
  return key;
}
