import { AUDIT_TOPIC, type SubscriberRecord } from '@hookstream/contracts';
import { auditRecordOf } from '@hookstream/subscribers';
import { auditActorOf, type Caller } from './caller.ts';
import { ManagementError } from './errors.ts';
import type { ManagementPorts } from './management-ports.ts';

/** What a read keeps of the secrets it showed: which ones, never their text. */
interface ShownSecrets {
  readonly createdAt: string;
  readonly previous: readonly unknown[];
}

/**
 * Records that the caller is being shown a managed secret: `subscriber.secret_read`, naming the
 * caller's token. A read changes nothing, so `before` and `after` are both the record's digest:
 * the chain of digests holds across it. Unlike a rotation's, a read whose record cannot be written
 * shows nothing (kafka_unavailable, 503): nothing was changed that needs the secret now, and a
 * secret shown unrecorded is what the audit trail is there to prevent. Asking again may succeed.
 */
export async function recordSecretRead(
  ports: Pick<ManagementPorts, 'audit'>,
  caller: Caller,
  record: SubscriberRecord,
  shown: ShownSecrets,
  now: Date,
): Promise<void> {
  const name = record.definition.name;
  const audit = auditRecordOf({
    actor: auditActorOf(caller),
    action: 'subscriber.secret_read',
    subscriber: name,
    before: record,
    after: record,
    detail: { createdAt: shown.createdAt, previous: shown.previous.length },
    now,
  });
  try {
    await ports.audit.write([audit]);
  } catch (err) {
    throw new ManagementError(
      'kafka_unavailable',
      `the secret of "${name}" is not shown: its read could not be recorded in ${AUDIT_TOPIC} (${rootMessage(err)})`,
      { canRetry: true, cause: err },
    );
  }
}

/** The innermost message: the trail's own error says "the change was made", which a read is not. */
function rootMessage(err: unknown): string {
  let e = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}
