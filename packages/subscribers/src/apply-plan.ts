import {
  type RecordSecret,
  SUBSCRIBER_RECORD_VERSION,
  type SubscriberDefinition,
  type SubscriberRecord,
  type SubscriberSecretSpec,
} from '@hookstream/contracts';
import type { DefinitionFile } from './definition-files.ts';
import { newManagedSecret } from './managed-secret.ts';
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

/**
 * What applying these files would do to the catalog, per name in file order: created (no
 * record), changed (with the differences) or unchanged. The state (paused…) is not the file's
 * business and stays as it is; so does an existing managed secret. Pure.
 */
export function planApply(
  current: ReadonlyMap<string, SubscriberRecord>,
  files: readonly DefinitionFile[],
): PlannedSubscriber[] {
  return files.map(({ path, spec }) => {
    const { secret, ...rest } = spec;
    const definition: SubscriberDefinition = rest;
    const existing = current.get(spec.name);
    const isManaged = secret !== undefined && 'managed' in secret;
    if (existing === undefined)
      return {
        name: spec.name,
        file: path,
        action: 'created',
        changes: diffValues({}, comparable(definition, secret), WHOLE),
        generatesSecret: isManaged,
        definition,
        secret,
      };
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
      definition,
      secret,
    };
  });
}

/**
 * The records to write for a plan (created and changed only). A managed secret is generated
 * where the plan says so, which needs the secrets key: without it this throws before anything
 * is written. An existing managed secret is carried over untouched.
 */
export function recordsForPlan(
  plan: readonly PlannedSubscriber[],
  current: ReadonlyMap<string, SubscriberRecord>,
  options: {
    readonly now: Date;
    readonly secretsKey: SecretsKey | undefined;
    readonly generate?: () => string;
  },
): SubscriberRecord[] {
  const at = options.now.toISOString();
  return plan
    .filter((p) => p.action !== 'unchanged')
    .map((p) => {
      const existing = current.get(p.name);
      let secret: RecordSecret | undefined;
      if (p.secret === undefined) secret = undefined;
      else if (!('managed' in p.secret)) secret = p.secret;
      else if (existing?.secret !== undefined && 'managed' in existing.secret) secret = existing.secret;
      else
        secret = newManagedSecret(
          requireSecretsKey(options.secretsKey, `generating the managed secret of "${p.name}"`),
          p.name,
          options.now,
          options.generate,
        );
      return {
        version: SUBSCRIBER_RECORD_VERSION,
        definition: p.definition,
        ...(secret === undefined ? {} : { secret }),
        state: existing?.state ?? { kind: 'active' },
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
      };
    });
}
