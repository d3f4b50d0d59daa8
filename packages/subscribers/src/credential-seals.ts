import { createPrivateKey } from 'node:crypto';
import {
  CREDENTIAL_NAMES,
  type CredentialName,
  type EncryptedSecret,
  managedCredentialNames,
  type SubscriberDefinition,
  type SubscriberRecord,
} from '@hookstream/contracts';
import { CatalogError } from './errors.ts';
import {
  openSecret,
  requireCurrentBinding,
  type SealBinding,
  type SealRole,
  sealBindingOf,
  sealSecret,
} from './secret-box.ts';
import type { SecretsKey } from './secrets-key.ts';

/** A client secret's limit in bytes; a PEM key's. */
const MAX_SECRET_BYTES = 4096;
const MAX_KEY_BYTES = 16_384;

/**
 * What a credential's seal is bound to besides the subscriber and its URL's origin: the client
 * secret also to the token URL's origin, where it is sent, so a token URL a catalog writer
 * moves does not receive it.
 */
export function credentialRole(
  definition: Pick<SubscriberDefinition, 'oauth2'>,
  name: CredentialName,
): SealRole {
  if (name === 'oauth2.clientSecret' && definition.oauth2 !== undefined)
    return { kind: 'credential', name, to: new URL(definition.oauth2.tokenUrl).origin };
  return { kind: 'credential', name };
}

export function isCredentialName(name: string): name is CredentialName {
  return (CREDENTIAL_NAMES as readonly string[]).includes(name);
}

function checkValue(subscriber: string, name: CredentialName, value: string): void {
  if (name === 'oauth2.clientSecret') {
    if (
      value === '' ||
      Buffer.byteLength(value) > MAX_SECRET_BYTES ||
      !/^[\x20-\x7e\x80-\uffff]*$/.test(value)
    )
      throw new CatalogError(
        'BAD_CREDENTIAL_VALUE',
        `"${subscriber}": ${name} must be 1 to ${MAX_SECRET_BYTES} bytes of text without control characters`,
        false,
      );
    return;
  }
  let ok = Buffer.byteLength(value) <= MAX_KEY_BYTES;
  try {
    if (ok) createPrivateKey(value);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new CatalogError(
      'BAD_CREDENTIAL_VALUE',
      `"${subscriber}": ${name} must be a PEM private key of at most ${MAX_KEY_BYTES} bytes`,
      false,
    );
}

/**
 * The record with a new sealed value for one of its managed credentials (`subscribers credential
 * set`). The definition must declare it `{ "managed": true }`. Pure but for the random IV.
 */
export function withCredentialValue(
  record: SubscriberRecord,
  key: SecretsKey,
  name: string,
  value: string,
  now: Date,
): SubscriberRecord {
  const subscriber = record.definition.name;
  if (!isCredentialName(name) || !managedCredentialNames(record.definition).includes(name))
    throw new CatalogError(
      'NOT_MANAGED',
      `"${subscriber}" has no managed credential ${name}: declare ${CREDENTIAL_NAMES.map((n) => `${n}`).join(' or ')} {"managed": true} in its definition and apply it first`,
      false,
    );
  checkValue(subscriber, name, value);
  const binding = requireCurrentBinding(sealBindingOf(record));
  const seal = sealSecret(key, binding, credentialRole(record.definition, name), value, now);
  return {
    ...record,
    sealedCredentials: { ...record.sealedCredentials, [name]: seal },
    updatedAt: now.toISOString(),
  };
}

/**
 * The record's managed credentials in clear text; {} when it has none. Fails with a coded error
 * for one without a sealed value, a missing or wrong key, or a seal that does not authenticate
 * (altered, or bound to another origin or token URL): a delivery never goes out with a wrong one.
 */
export function openManagedCredentials(
  record: SubscriberRecord,
  key: SecretsKey | undefined,
): Partial<Record<CredentialName, string>> {
  const names = managedCredentialNames(record.definition);
  if (names.length === 0) return {};
  const subscriber = record.definition.name;
  const binding = requireCurrentBinding(sealBindingOf(record));
  const open: Partial<Record<CredentialName, string>> = {};
  for (const name of names) {
    const sealed = record.sealedCredentials?.[name];
    if (sealed === undefined)
      throw new CatalogError(
        'NO_CREDENTIAL_VALUE',
        `"${subscriber}": ${name} is managed and has no value yet: hookstream subscribers credential set ${subscriber} ${name}`,
        true,
      );
    if (key === undefined)
      throw new CatalogError(
        'NO_SECRETS_KEY',
        `the managed credential ${name} of "${subscriber}" needs the secrets key: set HOOKSTREAM_SECRETS_KEY or pass --secrets-key-file`,
        false,
      );
    open[name] = openSecret(key, binding, credentialRole(record.definition, name), sealed);
  }
  return open;
}

/**
 * The sealed credentials a changed definition keeps, sealed again when what they are bound to
 * moves (the URL's origin; the token URL's origin for the client secret), or, for a tenant's
 * write, dropped then: the operator sealed them for where they were. Those the new definition no
 * longer manages are dropped. Needs the key only when something moves.
 */
export function keptCredentials(options: {
  readonly existing: SubscriberRecord | undefined;
  readonly definition: SubscriberDefinition;
  readonly to: SealBinding;
  readonly key: () => SecretsKey;
  readonly now: Date;
  /** A tenant's write: a credential whose binding moves is dropped, not sealed again. */
  readonly dropOnMove?: boolean;
}): Partial<Record<CredentialName, EncryptedSecret>> {
  const { existing, definition, to, now } = options;
  const kept: Partial<Record<CredentialName, EncryptedSecret>> = {};
  if (existing === undefined) return kept;
  for (const name of managedCredentialNames(definition)) {
    const seal = existing.sealedCredentials?.[name];
    if (seal === undefined) continue;
    const fromRole = credentialRole(existing.definition, name);
    const toRole = credentialRole(definition, name);
    const from = sealBindingOf(existing);
    const moves = from.origin !== to.origin || JSON.stringify(fromRole) !== JSON.stringify(toRole);
    if (!moves) {
      kept[name] = seal;
      continue;
    }
    if (options.dropOnMove === true) continue;
    const key = options.key();
    kept[name] = sealSecret(
      key,
      to,
      toRole,
      openSecret(key, requireCurrentBinding(from), fromRole, seal),
      now,
    );
  }
  return kept;
}
