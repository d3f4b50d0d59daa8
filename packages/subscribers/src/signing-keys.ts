import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { SubscriberRecord } from '@hookstream/contracts';
import { parseSigningSecret } from '@hookstream/delivery';
import { CatalogError } from './catalog-error.ts';
import { revealManagedSecret } from './managed-secret.ts';
import { sealBindingOf } from './secret-box.ts';
import { requireSecretsKey, type SecretsKey } from './secrets-key.ts';

/** The HMAC keys a subscriber's requests are signed with: the current one, then a rotation's previous ones. */
export interface SigningKeys {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

export interface ResolveOptions {
  /** Needed for managed secrets only. */
  readonly secretsKey?: SecretsKey | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** Where a relative `{file}` is resolved (apply stores absolute paths; default: the working directory). */
  readonly baseDir?: string;
  readonly now?: Date;
}

/**
 * A record's signing keys; undefined when it has no secret (requests go unsigned). Fails with a
 * coded CatalogError when the secret cannot be had (variable unset, file unreadable, secrets key
 * missing or wrong, sealed secret altered, or sealed for another origin or by an earlier
 * version, OLD_SEAL): it never returns a key that did not check out.
 */
export async function resolveSigningKeys(
  record: SubscriberRecord,
  options: ResolveOptions = {},
): Promise<SigningKeys | undefined> {
  const name = record.definition.name;
  const secret = record.secret;
  if (secret === undefined) return undefined;
  if ('managed' in secret) {
    const key = requireSecretsKey(options.secretsKey, `the managed secret of "${name}"`);
    const open = revealManagedSecret(key, sealBindingOf(record), secret, options.now ?? new Date());
    return { current: parse(name, open.current), previous: open.previous.map((p) => parse(name, p.secret)) };
  }
  if ('env' in secret) {
    const value = (options.env ?? process.env)[secret.env];
    if (value === undefined || value === '')
      throw new CatalogError('NO_SECRET', `"${name}": environment variable ${secret.env} is not set`, true);
    return { current: parse(name, value), previous: [] };
  }
  const path = isAbsolute(secret.file) ? secret.file : resolve(options.baseDir ?? process.cwd(), secret.file);
  let value: string;
  try {
    value = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    throw new CatalogError(
      'NO_SECRET',
      `"${name}": cannot read secret file ${path}: ${(err as Error).message}`,
      true,
    );
  }
  return { current: parse(name, value), previous: [] };
}

function parse(name: string, secret: string): Buffer {
  try {
    return parseSigningSecret(secret);
  } catch (err) {
    throw new CatalogError('BAD_SECRET', `"${name}": ${(err as Error).message}`, false);
  }
}
