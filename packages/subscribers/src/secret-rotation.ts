import type { AuditActor, AuditRecord, ManagedSecretState, SubscriberRecord } from '@hookstream/contracts';
import { auditRecordOf } from './audit-records.ts';
import { rotateManagedSecret } from './managed-secret.ts';
import { sealBindingOf } from './secret-box.ts';
import type { SecretsKey } from './secrets-key.ts';
import { withManagedSecret } from './state-changes.ts';

/**
 * A managed secret's rotation, decided before anything is written: the new secret state, the
 * record to write, and its audit record (`subscribers secret rotate`, the management API). Pure.
 */
export function secretRotation(
  key: SecretsKey,
  record: SubscriberRecord,
  state: ManagedSecretState,
  context: { readonly actor: AuditActor; readonly now: Date; readonly graceMs: number },
): { readonly state: ManagedSecretState; readonly next: SubscriberRecord; readonly audit: AuditRecord } {
  const { now, graceMs } = context;
  const rotated = rotateManagedSecret(key, sealBindingOf(record), state, { now, graceMs });
  const next = withManagedSecret(record, rotated, now);
  const audit = auditRecordOf({
    actor: context.actor,
    action: 'subscriber.secret_rotated',
    subscriber: record.definition.name,
    before: record,
    after: next,
    detail: { graceMs },
    now,
  });
  return { state: rotated, next, audit };
}
