import {
  type EncryptedSecret,
  HEADER_VALUE_PATTERN,
  managedHeaderNames,
  type SubscriberRecord,
} from '@hookstream/contracts';
import { CatalogError } from './catalog-error.ts';
import {
  openSecret,
  opens,
  requireCurrentBinding,
  type SealBinding,
  sealBindingOf,
  sealSecret,
} from './secret-box.ts';
import type { SecretsKey } from './secrets-key.ts';

/** A header value's limit in bytes (the contract's sealed-value bound holds this much). */
const MAX_HEADER_VALUE = 8192;

/** One managed header's value, sealed for the subscriber, its origin and the header's name. */
export function sealHeaderValue(
  key: SecretsKey,
  binding: SealBinding,
  header: string,
  value: string,
  now: Date,
): EncryptedSecret {
  if (value === '' || Buffer.byteLength(value) > MAX_HEADER_VALUE || !HEADER_VALUE_PATTERN.test(value))
    throw new CatalogError(
      'BAD_HEADER_VALUE',
      `the value of header ${header} must be 1 to ${MAX_HEADER_VALUE} bytes of header text (no CR, LF, NUL or other control characters)`,
      false,
    );
  return sealSecret(key, binding, { kind: 'header', name: header }, value, now);
}

/**
 * The record's managed header values in clear text, by header name; {} when it has none.
 * Fails with a coded error for a header whose value is not sealed yet, a wrong key or a seal
 * that does not authenticate: a request never goes out without, or with the wrong, credential.
 */
export function openManagedHeaders(
  record: SubscriberRecord,
  key: SecretsKey | undefined,
): Record<string, string> {
  const names = managedHeaderNames(record.definition);
  if (names.length === 0) return {};
  const name = record.definition.name;
  const binding = requireCurrentBinding(sealBindingOf(record));
  const open: Record<string, string> = {};
  for (const header of names) {
    const sealed = record.sealedHeaders?.[header];
    if (sealed === undefined)
      throw new CatalogError(
        'NO_HEADER_VALUE',
        `"${name}": header ${header} is managed and has no value yet: hookstream subscribers header set ${name} ${header}`,
        true,
      );
    if (key === undefined)
      throw new CatalogError(
        'NO_SECRETS_KEY',
        `the managed header ${header} of "${name}" needs the secrets key: set HOOKSTREAM_SECRETS_KEY or pass --secrets-key-file`,
        false,
      );
    open[header] = openSecret(key, binding, { kind: 'header', name: header }, sealed);
  }
  return open;
}

/** The sealed header values moved to another binding (a new URL origin); those that already open there stay. */
export function resealHeaders(
  key: SecretsKey,
  from: SealBinding,
  to: SealBinding,
  sealed: Readonly<Record<string, EncryptedSecret>>,
  now: Date,
): Record<string, EncryptedSecret> {
  const moved: Record<string, EncryptedSecret> = {};
  for (const [header, seal] of Object.entries(sealed)) {
    const role = { kind: 'header', name: header } as const;
    moved[header] = opens(() => openSecret(key, to, role, seal))
      ? seal
      : sealSecret(key, to, role, openSecret(key, from, role, seal), now);
  }
  return moved;
}

/**
 * The record with a new sealed value for one of its managed headers (`subscribers header set`).
 * The definition must declare the header `{ "managed": true }`: the value's place is decided by
 * the definition, not by whoever holds the key. Pure but for the random IV.
 */
export function withHeaderValue(
  record: SubscriberRecord,
  key: SecretsKey,
  header: string,
  value: string,
  now: Date,
): SubscriberRecord {
  const name = record.definition.name;
  if (!managedHeaderNames(record.definition).includes(header))
    throw new CatalogError(
      'NOT_MANAGED',
      `"${name}" has no managed header ${header}: declare it "${header}": {"managed": true} in its definition and apply it first`,
      false,
    );
  const binding = requireCurrentBinding(sealBindingOf(record));
  return {
    ...record,
    sealedHeaders: { ...record.sealedHeaders, [header]: sealHeaderValue(key, binding, header, value, now) },
    updatedAt: now.toISOString(),
  };
}
