import {
  type EncryptedSecret,
  managedCredentialNames,
  managedHeaderNames,
  type RecordSecret,
  recordVersionFor,
  type SubscriberDefinition,
  type SubscriberRecord,
  type SubscriberSecretSpec,
  sealOriginOf,
} from '@hookstream/contracts';
import { keptCredentials } from './credential-seals.ts';
import type { DefinitionFile } from './definition-files.ts';
import { CatalogError } from './errors.ts';
import { resealHeaders } from './header-seals.ts';
import { newManagedSecret, resealManagedSecret } from './managed-secret.ts';
import { requireCurrentBinding, type SealBinding, sealBindingOf } from './secret-box.ts';
import { requireSecretsKey, type SecretsKey } from './secrets-key.ts';
import { diffValues, type ValueChange } from './value-diff.ts';

export type ApplyAction = 'created' | 'changed' | 'unchanged';

export interface PlannedSubscriber {
  readonly name: string;
  readonly file: string;
  readonly action: ApplyAction;
  /** What changes, field by field (the secret as its reference only); empty when unchanged. */
  readonly changes: readonly ValueChange[];
  /** A managed secret will be generated (new subscriber, or a switch to managed). */
  readonly generatesSecret: boolean;
  /** The URL's origin changes: the seals kept (managed secret, header values) are sealed again for it. */
  readonly reseals: boolean;
  /** Managed headers that have no sealed value yet: `subscribers header set` gives them one. */
  readonly headersWithoutValue: readonly string[];
  readonly definition: SubscriberDefinition;
  readonly secret: SubscriberSecretSpec | undefined;
}

/** The secret as a definition names it: a managed record's sealed material is just `{managed: true}`. */
function secretReference(secret: RecordSecret | undefined): SubscriberSecretSpec | undefined {
  if (secret === undefined) return undefined;
  return 'managed' in secret ? { managed: true } : secret;
}

/** A secret reference reads best as one value: `secret: {"env":"A"} → {"managed":true}`. */
const WHOLE = { whole: ['secret'] };

function comparable(definition: SubscriberDefinition, secret: SubscriberSecretSpec | undefined) {
  return { ...definition, secret };
}

/** The version-2 binding a definition's seals get. */
function bindingFor(definition: SubscriberDefinition): SealBinding {
  return { version: 2, subscriber: definition.name, origin: sealOriginOf(definition) };
}

/** What of the existing record's seals the new definition keeps, and whether their origin moves. */
function keptSeals(
  existing: SubscriberRecord | undefined,
  definition: SubscriberDefinition,
  secret: SubscriberSecretSpec | undefined,
  dropOnMove = false,
) {
  const managed = managedHeaderNames(definition);
  const moves = existing !== undefined && sealOriginOf(existing.definition) !== sealOriginOf(definition);
  // The operator sealed headers for one origin: a tenant that moves the URL does not take them along.
  const headers =
    moves && dropOnMove ? [] : managed.filter((h) => existing?.sealedHeaders?.[h] !== undefined);
  const keepsSecret =
    secret !== undefined &&
    'managed' in secret &&
    existing?.secret !== undefined &&
    'managed' in existing.secret;
  return {
    headers,
    keepsSecret,
    reseals: moves && (keepsSecret || headers.length > 0),
    headersWithoutValue: managed.filter((h) => !headers.includes(h)),
  };
}

/**
 * A required definition that does not say from when owes events from when it first became
 * required: the record's time when it was required already (so applying the same file again
 * changes nothing), else now.
 */
function withRequiredFrom(
  definition: SubscriberDefinition,
  existing: SubscriberRecord | undefined,
  now: Date,
): SubscriberDefinition {
  if (definition.required !== true || definition.requiredFrom !== undefined) return definition;
  const since = existing?.definition.required === true ? existing.definition.requiredFrom : undefined;
  return { ...definition, requiredFrom: since ?? now.toISOString() };
}

/**
 * What applying these files would do to the catalog, per name in file order: created (no
 * record), changed (with the differences) or unchanged. The state (paused…) is not the file's
 * business and stays as it is; so does an existing managed secret. Pure. A subscriber's tenant
 * cannot change (TENANT_CHANGED, naming the field): its group's ledger holds what it acknowledged
 * of one tenant's events, and an older fleet, which keeps the last record it could read, would go
 * on delivering every tenant's events to a subscriber that gained one.
 */
export function planApply(
  current: ReadonlyMap<string, SubscriberRecord>,
  files: readonly DefinitionFile[],
  now: Date = new Date(),
): PlannedSubscriber[] {
  return files.map(({ path, spec }) => {
    const { secret, ...rest } = spec;
    const existing = current.get(spec.name);
    const definition = withRequiredFrom(rest, existing, now);
    const isManaged = secret !== undefined && 'managed' in secret;
    const { reseals, headersWithoutValue } = keptSeals(existing, definition, secret);
    if (existing === undefined)
      return {
        name: spec.name,
        file: path,
        action: 'created',
        changes: diffValues({}, comparable(definition, secret), WHOLE),
        generatesSecret: isManaged,
        reseals,
        headersWithoutValue,
        definition,
        secret,
      };
    if (existing.definition.tenant !== definition.tenant)
      throw new CatalogError(
        'TENANT_CHANGED',
        `${spec.name} (${path}): "tenant" cannot change (${JSON.stringify(existing.definition.tenant ?? null)} → ${JSON.stringify(definition.tenant ?? null)}); delete the subscriber and create it again; nothing was written`,
        false,
      );
    const changes = diffValues(
      comparable(existing.definition, secretReference(existing.secret)),
      comparable(definition, secret),
      WHOLE,
    );
    const hadManaged = existing.secret !== undefined && 'managed' in existing.secret;
    return {
      name: spec.name,
      file: path,
      action: changes.length === 0 ? 'unchanged' : 'changed',
      changes,
      generatesSecret: isManaged && !hadManaged,
      reseals,
      headersWithoutValue,
      definition,
      secret,
    };
  });
}

/**
 * The records to write for a plan (created and changed only), each as the lowest record version
 * that holds its definition (`recordVersionFor`: 2 unless it uses newer fields). A managed secret is
 * generated where the plan says so, and the seals kept are sealed again when the URL's origin
 * changes, which needs the secrets key: without it this throws before anything is written. So
 * does a kept seal of a version-1 record (OLD_SEAL: `subscribers reseal` first). Seals of headers
 * and credentials no longer managed are dropped; a client secret is sealed again when the token
 * URL's origin changes too.
 */
export function recordsForPlan(
  plan: readonly PlannedSubscriber[],
  current: ReadonlyMap<string, SubscriberRecord>,
  options: {
    readonly now: Date;
    readonly secretsKey: SecretsKey | undefined;
    readonly generate?: () => string;
    /**
     * A tenant's write: sealed headers and credentials (the operator's: only the CLI seals them)
     * are dropped when what they are bound to moves, instead of sealed again for the new place.
     * The managed signing secret is the tenant's own and moves with it.
     */
    readonly dropOperatorSealsOnMove?: boolean;
  },
): SubscriberRecord[] {
  const at = options.now.toISOString();
  return plan
    .filter((p) => p.action !== 'unchanged')
    .map((p) => {
      const existing = current.get(p.name);
      const to = bindingFor(p.definition);
      const kept = keptSeals(existing, p.definition, p.secret, options.dropOperatorSealsOnMove);
      const from = existing === undefined ? to : sealBindingOf(existing);
      if (kept.keepsSecret || kept.headers.length > 0) requireCurrentBinding(from);
      const key = (why: string) => requireSecretsKey(options.secretsKey, `${why} of "${p.name}"`);
      let secret: RecordSecret | undefined;
      if (p.secret === undefined) secret = undefined;
      else if (!('managed' in p.secret)) secret = p.secret;
      else if (existing?.secret !== undefined && 'managed' in existing.secret)
        secret = kept.reseals
          ? resealManagedSecret(
              key('sealing again for its new origin the managed secret'),
              from,
              to,
              existing.secret,
              options.now,
            )
          : existing.secret;
      else secret = newManagedSecret(key('generating the managed secret'), to, options.now, options.generate);
      let sealedHeaders: Record<string, EncryptedSecret> = {};
      for (const h of kept.headers) {
        const seal = existing?.sealedHeaders?.[h];
        if (seal !== undefined) sealedHeaders[h] = seal;
      }
      if (kept.reseals && kept.headers.length > 0)
        sealedHeaders = resealHeaders(
          key('sealing again for its new origin the managed headers'),
          from,
          to,
          sealedHeaders,
          options.now,
        );
      const sealedCredentials = keptCredentials({
        existing,
        definition: p.definition,
        to,
        key: () => key('sealing again for its new origin or token URL the managed credentials'),
        now: options.now,
        dropOnMove: options.dropOperatorSealsOnMove === true,
      });
      return {
        version: recordVersionFor(p.definition),
        definition: p.definition,
        ...(secret === undefined ? {} : { secret }),
        ...(kept.headers.length === 0 ? {} : { sealedHeaders }),
        ...(Object.keys(sealedCredentials).length === 0 ? {} : { sealedCredentials }),
        state: existing?.state ?? { kind: 'active' },
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
    });
}

/**
 * The seals `before` had that `after` lacks while its definition still manages them
 * (`headers.<name>`, `oauth2.clientSecret`, `clientCertificate.key`): what a tenant's move to a
 * new origin dropped, for the answer to name. Pure.
 */
export function droppedSeals(before: SubscriberRecord | undefined, after: SubscriberRecord): string[] {
  if (before === undefined) return [];
  const headers = managedHeaderNames(after.definition)
    .filter((h) => before.sealedHeaders?.[h] !== undefined && after.sealedHeaders?.[h] === undefined)
    .map((h) => `headers.${h}`);
  const credentials = managedCredentialNames(after.definition).filter(
    (c) => before.sealedCredentials?.[c] !== undefined && after.sealedCredentials?.[c] === undefined,
  );
  return [...headers, ...credentials];
}
