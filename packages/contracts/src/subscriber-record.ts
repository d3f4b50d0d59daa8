import { z } from 'zod';
import { FILTER_TOO_LARGE, filterTooLarge } from './event-filter.ts';
import {
  CREDENTIAL_NAMES,
  definitionRuleBroken,
  managedCredentialNames,
  managedHeaderNames,
  SecretSource,
  SubscriberDefinition,
} from './subscriber.ts';

/**
 * The catalog's side of the catalog topic: one record per subscriber, keyed by its name, that
 * says what it is (its definition), whether it runs (its state) and how its requests are signed.
 * A tombstone (null value) means deleted. Secrets never appear in clear text: a managed secret is
 * stored AES-256-GCM encrypted under a key the registry never holds.
 *
 * Version 2: seals bind the subscriber's name, its URL's origin and what each one is (the
 * signing secret, a previous one with its expiry, a header), and headers may be managed
 * (`sealedHeaders`). Version 1 records are still read, and run when they hold no seal; a
 * version-1 seal (bound to the name only) is opened by `subscribers reseal` alone, which rewrites
 * the record as version 2. Version-1 code refuses version-2 records (its schema takes version 1
 * only) and keeps the last version-1 record it read of each subscriber.
 *
 * Version 3 adds definition fields (`required`, `requiredFrom`, `retentionWarningMs`); seals are
 * as in version 2. A record is written as the lowest version that holds its definition
 * (`recordVersionFor`), so a subscriber that uses none of the new fields stays readable by
 * version-2 fleets; older code keeps the last record it could read, so `subscribers apply`
 * refuses a version-3 record while a running instance does not understand version 3.
 *
 * Version 4 adds `tenant`. An older fleet would ignore it and deliver every tenant's events, so
 * apply refuses it while such a fleet runs, and refuses a tenant that changes on an existing
 * record (an older fleet keeps the last record it read: a subscriber never gains a tenant).
 *
 * Version 5 adds `fairness`. An older fleet would deliver such a subscriber's events in order of
 * arrival, one tenant's burst ahead of every other's, so apply refuses it while such a fleet runs.
 *
 * Version 6 adds `filter`. An older fleet would deliver every event of the subscriber's types,
 * the ones its filter refuses too, so apply refuses it while such a fleet runs.
 *
 * Version 7 adds outbound authentication, `oauth2` and `clientCertificate`. An older fleet would
 * deliver without the bearer token or the client certificate (every attempt a 401 or a refused
 * handshake), so apply refuses them while such a fleet runs. Their credentials are references
 * to the pusher's environment (`HOOKSTREAM_OAUTH_…`, `HOOKSTREAM_CLIENT_KEY_…`) or managed:
 * sealed in `sealedCredentials` like a header value, the client secret bound to the token URL's
 * origin too. A version 7 record is the only one that holds `sealedCredentials`.
 *
 * Version 7 also adds `ordering: "strict"` and `maxHoldMs`. An older fleet cannot parse the record
 * (its schema knows `none` and `key` only) and keeps the last one it read, delivering without the
 * strict order, so apply refuses them while such a fleet runs. A subscriber that changes from
 * `key` to `strict` keeps its tiers: records already there are delivered from them as before.
 *
 * Version 8 adds `batch`. An older fleet would send one request per event (no `{ "events": … }`
 * body the receiver was told to expect), so apply refuses it while such a fleet runs.
 *
 * Version 9 adds `mode` (`pull`: no `url`; events leased over the API). An older fleet could not
 * parse a record without `url` and keeps the last one it read; apply refuses it while such a
 * fleet runs, since that fleet would go on pushing a subscriber that now pulls.
 */
export const SUBSCRIBER_RECORD_VERSION = 9;

/** The record versions this code reads (and says it understands in `hookstream.instances`). */
export const SubscriberRecordVersion = z.union([
  z.literal(1),
  z.literal(2),
  z.literal(3),
  z.literal(4),
  z.literal(5),
  z.literal(6),
  z.literal(7),
  z.literal(8),
  z.literal(9),
]);
export type SubscriberRecordVersion = z.infer<typeof SubscriberRecordVersion>;
export const SUBSCRIBER_RECORD_VERSIONS: readonly SubscriberRecordVersion[] = [1, 2, 3, 4, 5, 6, 7, 8, 9];

/** Definition fields by the record version that brought them; a field not listed is older. */
const FIELDS_SINCE: Readonly<Record<string, SubscriberRecordVersion>> = {
  required: 3,
  requiredFrom: 3,
  retentionWarningMs: 3,
  tenant: 4,
  fairness: 5,
  filter: 6,
  maxHoldMs: 7,
  oauth2: 7,
  clientCertificate: 7,
  batch: 8,
  mode: 9,
};

/** Field values by the record version that brought them: an older version holds the field, not the value. */
function valueSince(definition: SubscriberDefinition, field: string): SubscriberRecordVersion | undefined {
  if (field === 'ordering' && definition.ordering === 'strict') return 7;
  return FIELDS_SINCE[field];
}

/** The definition fields a record of `version` cannot hold, in the definition's order. */
export function fieldsNewerThan(definition: SubscriberDefinition, version: number): string[] {
  return Object.keys(definition).filter(
    (field) =>
      definition[field as keyof SubscriberDefinition] !== undefined &&
      (valueSince(definition, field) ?? 0) > version,
  );
}

/**
 * The version a record of this definition is written as: the lowest that holds every field it
 * uses, and never 1 (whose seals bound the name only).
 */
export function recordVersionFor(definition: SubscriberDefinition): SubscriberRecordVersion {
  let version: SubscriberRecordVersion = 2;
  for (const field of Object.keys(definition)) {
    const since = valueSince(definition, field);
    if (
      since !== undefined &&
      since > version &&
      definition[field as keyof SubscriberDefinition] !== undefined
    )
      version = since;
  }
  return version;
}

/** `{"managed": true}` in a definition file: hookstream generates and keeps the secret. */
export const ManagedSecretRequest = z.strictObject({ managed: z.literal(true) });
export type ManagedSecretRequest = z.infer<typeof ManagedSecretRequest>;

/** What an operator may write as `secret` in a file given to `subscribers apply`. */
export const SubscriberSecretSpec = z.union([SecretSource, ManagedSecretRequest]);
export type SubscriberSecretSpec = z.infer<typeof SubscriberSecretSpec>;

/**
 * A definition file as `subscribers apply` reads it: today's definition, whose secret may also be
 * managed. (SubscriberDefinition itself stays as it is: `push --config` cannot manage secrets.)
 */
export const SubscriberSpec = SubscriberDefinition.extend({ secret: SubscriberSecretSpec.optional() });
export type SubscriberSpec = z.infer<typeof SubscriberSpec>;

const base64 = (bytes?: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64')
    .refine((s) => bytes === undefined || Buffer.from(s, 'base64').length === bytes, {
      message: `base64 of ${bytes} bytes`,
    });

function sealed(maxCiphertextChars: number) {
  return z.strictObject({
    alg: z.literal('A256GCM'),
    /** Which secrets key sealed it (a fingerprint, not the key), so a wrong key is told apart from tampering. */
    keyId: z.string().regex(/^[0-9a-f]{16}$/),
    iv: base64(12),
    tag: base64(16),
    ciphertext: base64().refine((s) => s.length > 0 && s.length <= maxCiphertextChars, {
      message: `at most ${maxCiphertextChars} characters`,
    }),
    createdAt: z.iso.datetime({ offset: true }),
  });
}

/**
 * One secret sealed with AES-256-GCM. The associated data (not stored: derived when it is
 * opened) is the subscriber's name, and in version 2 also its URL's origin and the seal's role.
 */
export const EncryptedSecret = sealed(1024);
/** A managed header's value, sealed like a secret; up to 8192 characters of header text. */
export const SealedHeaderValue = sealed(10_924);
export type EncryptedSecret = z.infer<typeof EncryptedSecret>;
/** A managed credential (a client secret, a PEM private key of up to 16 KiB), sealed like a secret. */
export const SealedCredential = sealed(21_848);

/** A managed secret: the one that signs, and those a rotation still signs with until they expire. */
export const ManagedSecretState = z.strictObject({
  managed: z.literal(true),
  current: EncryptedSecret,
  previous: z
    .array(z.strictObject({ secret: EncryptedSecret, expiresAt: z.iso.datetime({ offset: true }) }))
    .max(10)
    .default([]),
});
export type ManagedSecretState = z.infer<typeof ManagedSecretState>;

/** How a record's requests are signed: a reference (env, file) or the sealed managed secret. */
export const RecordSecret = z.union([SecretSource, ManagedSecretState]);
export type RecordSecret = z.infer<typeof RecordSecret>;

export const SubscriberState = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('active') }),
  /** Stopped by an operator; its group and ledger stay, resume continues from them. */
  z.strictObject({
    kind: z.literal('paused'),
    reason: z.string().max(500),
    by: z.string().min(1).max(200),
    at: z.iso.datetime({ offset: true }),
  }),
  /**
   * Stopped by hookstream itself: the endpoint answered 410 Gone (`gone`) or failed without a
   * success for the definition's disableAfterMs (`failing`). Its group and ledger stay; resume
   * continues from them.
   */
  z.strictObject({
    kind: z.literal('disabled'),
    reason: z.string().max(500),
    at: z.iso.datetime({ offset: true }),
    cause: z.enum(['gone', 'failing']).optional(),
  }),
]);
export type SubscriberState = z.infer<typeof SubscriberState>;

export const SubscriberRecord = z
  .strictObject({
    version: SubscriberRecordVersion,
    /** The definition with defaults filled; its `secret` is always absent (see `secret`). */
    definition: SubscriberDefinition,
    /** The single place the signing secret is described; absent = requests go unsigned. */
    secret: RecordSecret.optional(),
    /**
     * The values of the definition's `{ "managed": true }` headers, sealed, by header name as
     * the definition spells it; one not here yet is set with `subscribers header set`.
     */
    sealedHeaders: z.record(z.string().max(256), SealedHeaderValue).optional(),
    /**
     * The values of the definition's `{ "managed": true }` credentials, sealed, by field path;
     * one not here yet is set with `subscribers credential set`. (Record version 7.)
     */
    sealedCredentials: z.partialRecord(z.enum(CREDENTIAL_NAMES), SealedCredential).optional(),
    state: SubscriberState,
    createdAt: z.iso.datetime({ offset: true }),
    updatedAt: z.iso.datetime({ offset: true }),
  })
  .refine((r) => r.definition.secret === undefined, {
    message: 'the secret belongs in the record, not in its definition',
    path: ['definition', 'secret'],
  })
  .refine(
    (r) => r.version >= 2 || (r.sealedHeaders === undefined && managedHeaderNames(r.definition).length === 0),
    {
      message: 'a version 1 record has no managed headers',
      path: ['definition', 'headers'],
    },
  )
  .refine((r) => fieldsNewerThan(r.definition, r.version).length === 0, {
    message: 'a field newer than the record version',
    path: ['version'],
  })
  .superRefine((r, ctx) => {
    const broken = definitionRuleBroken(r.definition);
    if (broken !== null)
      ctx.addIssue({ code: 'custom', message: broken.message, path: ['definition', broken.path] });
  })
  .refine(
    (r) =>
      Object.keys(r.sealedCredentials ?? {}).every((c) =>
        (managedCredentialNames(r.definition) as string[]).includes(c),
      ),
    {
      message: 'a sealed credential that the definition does not declare { "managed": true }',
      path: ['sealedCredentials'],
    },
  )
  .refine(
    (r) => Object.keys(r.sealedHeaders ?? {}).every((h) => managedHeaderNames(r.definition).includes(h)),
    {
      message: 'a sealed header that the definition does not declare { "managed": true }',
      path: ['sealedHeaders'],
    },
  );
export type SubscriberRecord = z.infer<typeof SubscriberRecord>;

/**
 * Validates a parsed definition file for `subscribers apply`; the error names each offending
 * field, as parseSubscriberDefinition does (`rate.perSecond: Too small…`, `unknown field "x"`).
 */
export function parseSubscriberSpec(
  input: unknown,
): { ok: true; value: SubscriberSpec } | { ok: false; error: string } {
  if (filterTooLarge((input as { filter?: unknown } | null)?.filter))
    return { ok: false, error: FILTER_TOO_LARGE };
  const parsed = SubscriberSpec.safeParse(input);
  if (parsed.success) {
    const broken = definitionRuleBroken(parsed.data);
    if (broken === null) return { ok: true, value: parsed.data };
    return { ok: false, error: `${broken.path}: ${broken.message}` };
  }
  const messages = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const where = path === '' ? '' : ` in ${path}`;
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}${where}`;
    }
    return `${path === '' ? '(definition)' : path}: ${issue.message}`;
  });
  return { ok: false, error: messages.join('; ') };
}
