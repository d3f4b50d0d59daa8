import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  managedHeaderNames,
  parseSubscriberDefinition,
  type SubscriberDefinition,
} from '@hookstream/contracts';
import { DeliveryError, parseSigningSecret } from '@hookstream/delivery';
import { PusherError } from '@hookstream/pusher-core';

export interface LoadedSubscriber {
  readonly definition: SubscriberDefinition;
  /** The HMAC key; undefined when the definition has no secret (requests go unsigned). */
  readonly signingKey: Buffer | undefined;
}

/**
 * Reads and validates a definition file once at start-up, and fetches the secret it names
 * (an environment variable, or a file relative to the definition).
 */
export async function loadSubscriber(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LoadedSubscriber> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new PusherError('BAD_DEFINITION', `cannot read ${path}: ${(err as Error).message}`, false);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PusherError('BAD_DEFINITION', `${path} is not JSON: ${(err as Error).message}`, false);
  }
  const parsed = parseSubscriberDefinition(json);
  if (!parsed.ok) throw new PusherError('BAD_DEFINITION', `${path}: ${parsed.error}`, false);
  const definition = parsed.value;
  const managed = managedHeaderNames(definition);
  if (managed.length > 0)
    throw new PusherError(
      'BAD_DEFINITION',
      `${path}: headers.${managed[0]}: a managed header's value is sealed in the catalog; a definition file gives it as { "env": "HOOKSTREAM_HEADER_…" }`,
      false,
    );
  if (!definition.secret) return { definition, signingKey: undefined };
  let secret: string | undefined;
  if ('env' in definition.secret) {
    secret = env[definition.secret.env];
    if (!secret)
      throw new PusherError(
        'NO_SECRET',
        `secret.env: environment variable ${definition.secret.env} is not set`,
        true,
      );
  } else {
    const file = resolve(dirname(path), definition.secret.file);
    try {
      secret = (await readFile(file, 'utf8')).trim();
    } catch (err) {
      throw new PusherError('NO_SECRET', `secret.file: cannot read ${file}: ${(err as Error).message}`, true);
    }
  }
  try {
    return { definition, signingKey: parseSigningSecret(secret) };
  } catch (err) {
    if (err instanceof DeliveryError) throw new PusherError('NO_SECRET', `secret: ${err.message}`, false);
    throw err;
  }
}
