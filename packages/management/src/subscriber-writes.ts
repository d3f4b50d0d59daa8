import type { SubscriberRecord, SubscriberState } from '@hookstream/contracts';
import {
  applyAuditRecords,
  CatalogError,
  changeSubscriberState,
  DEFAULT_ROTATION_GRACE_MS,
  type DeleteResult,
  describeSecret,
  droppedSeals,
  planApply,
  publicRecord,
  recordsForPlan,
  refuseUnavailableNames,
  requireSecretsKey,
  revealManagedSecret,
  sealBindingOf,
  secretRotation,
} from '@hookstream/subscribers';
import { auditActorOf, auditContextOf, type Caller } from './caller.ts';
import { ManagementError } from './errors.ts';
import { etagOf, expectedRevision } from './etag.ts';
import { refuseWhatTheFleetCannotRead } from './fleet-check.ts';
import type { ManagementPorts } from './management-ports.ts';
import { recordSecretRead } from './secret-read.ts';
import type { SubscriberResource } from './subscriber-reads.ts';
import { refuseOverQuota } from './tenant-quotas.ts';
import { specFor, visibleRecord } from './tenant-rules.ts';

export interface PutResult {
  /** created: no record held the name; changed: replaced; unchanged: the same definition again. */
  readonly action: 'created' | 'changed' | 'unchanged';
  readonly subscriber: SubscriberResource;
  /**
   * Sealed values the operator set (headers, OAuth2 client secret, client key) that a tenant's
   * move of the URL or token URL to a new origin dropped: the operator seals them again.
   */
  readonly droppedSeals: readonly string[];
}

/**
 * Creates or replaces a subscriber from a definition, as `subscribers apply` does one file: the
 * state and an existing managed secret are kept, the same definition again writes nothing
 * (idempotent), and a name another tenant holds (or a deleted subscriber's binding) is
 * `name_unavailable`. One audit record per write.
 */
export async function putSubscriber(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  body: unknown,
  options: { readonly ifMatch?: string | undefined } = {},
): Promise<PutResult> {
  const spec = specFor(caller, name, body, ports.tenantPolicy);
  for (let attempt = 1; ; attempt++) {
    try {
      return await putOnce(ports, caller, spec, options.ifMatch);
    } catch (err) {
      // Without If-Match a PUT is last-writer-wins: a write that landed in between is read and
      // the PUT decided again (bounded). With one, the caller decides again: 412.
      const lostRace = err instanceof CatalogError && err.code === 'REVISION_MISMATCH';
      if (!lostRace || options.ifMatch !== undefined || attempt >= PUT_ATTEMPTS) throw err;
    }
  }
}

/** How often an unconditional PUT reads and writes again after losing a race. */
const PUT_ATTEMPTS = 3;

async function putOnce(
  ports: ManagementPorts,
  caller: Caller,
  spec: ReturnType<typeof specFor>,
  ifMatch: string | undefined,
): Promise<PutResult> {
  const name = spec.name;
  const snapshot = await ports.catalog.read();
  refuseUnavailableNames(snapshot, [spec], caller.scope);
  const now = ports.now();
  const plan = planApply(snapshot.subscribers, [{ path: `PUT /v1/subscribers/${name}`, spec }], now);
  await refuseWhatTheFleetCannotRead(plan, () => ports.instanceStatuses());
  const records = recordsForPlan(plan, snapshot.subscribers, {
    now,
    secretsKey: ports.secretsKey,
    dropOperatorSealsOnMove: caller.scope.kind === 'tenant',
  });
  const existing = snapshot.subscribers.get(name);
  const current = snapshot.revisions.get(name);
  const { expected } = expectedRevision(ifMatch, existing === undefined ? undefined : current);
  const [record] = records;
  if (plan[0]?.action === 'created' && record !== undefined) {
    refuseOverQuota(snapshot, caller, ports.tenantQuotas);
    await ports.commitStart(record.definition);
  }
  // The same definition again writes nothing: the record and its revision stay.
  const revision = record === undefined ? current : await ports.catalog.writeIfRevision(record, expected);
  await ports.audit.write(applyAuditRecords(snapshot.subscribers, records, auditActorOf(caller), now));
  const after = record ?? existing;
  if (after === undefined || revision === undefined)
    throw new ManagementError('internal', `${name}: no record after the apply`);
  return {
    action: plan[0]?.action ?? 'unchanged',
    subscriber: { ...publicRecord(after), etag: etagOf(revision) },
    droppedSeals: record === undefined ? [] : droppedSeals(existing, record),
  };
}

/**
 * Deletes a subscriber as the caller may (planDelete): a tenant's delete purges its group and
 * topics and frees the name; the operator's keeps the name bound unless `purge`. With If-Match,
 * the tombstone is written only on the revision it names (412 otherwise, nothing purged).
 */
export async function removeSubscriber(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  options: { readonly purge: boolean; readonly ifMatch?: string | undefined },
): Promise<DeleteResult> {
  const snapshot = await ports.catalog.read();
  const current = snapshot.subscribers.get(name);
  // A tenant's If-Match on another tenant's record must answer 404, as without one.
  if (current !== undefined) visibleRecord(snapshot, name, caller);
  const expected =
    options.ifMatch === undefined
      ? undefined
      : expectedRevision(options.ifMatch, current === undefined ? undefined : snapshot.revisions.get(name))
          .expected;
  return ports.deleteSubscriber({
    name,
    actor: caller.scope,
    purge: options.purge,
    snapshot,
    now: ports.now(),
    audit: auditContextOf(ports.audit, caller),
    ...(expected === undefined || expected === 'absent' ? {} : { expectedRevision: expected }),
  });
}

export interface StateResult {
  readonly name: string;
  readonly changed: boolean;
  readonly state: SubscriberState;
  /** The subscriber.enabled notice's id, when resuming a disabled subscriber published one. */
  readonly published: string | null;
  /** Why the subscriber.enabled notice due on resuming a disabled subscriber could not be published. */
  readonly noticeError: string | null;
}

/** Pauses or resumes one of the caller's subscribers; the trail names the caller's token. */
export async function changeState(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  request: { readonly action: 'pause' | 'resume'; readonly reason?: string | undefined },
): Promise<StateResult> {
  const snapshot = await ports.catalog.read();
  visibleRecord(snapshot, name, caller);
  const result = await changeSubscriberState(
    {
      catalog: { read: async () => snapshot, write: (records) => ports.catalog.write(records) },
      openPublisher: () => ports.openPublisher(),
      audit: auditContextOf(ports.audit, caller),
    },
    { ...request, name, by: caller.id, eventsTopic: ports.eventsTopic, now: ports.now() },
  );
  return {
    name,
    changed: result.changed,
    state: result.record.state,
    published: result.published,
    noticeError: result.noticeError,
  };
}

/** A managed secret in clear: the current one and those still signing through their grace. */
export interface RotatedSecret {
  readonly name: string;
  readonly current: string;
  readonly createdAt: string;
  readonly previous: readonly { readonly secret: string; readonly expiresAt: string }[];
  /** A rotation whose audit record could not be written: why (the rotation stands). */
  readonly auditError?: string;
}

/**
 * The managed secret of one of the caller's subscribers, in clear, with those still signing:
 * its receiver's owner verifies with them (a PUT that asks for a managed secret does not show it).
 * Shown only once its read is in the audit trail (recordSecretRead).
 */
export async function revealSecret(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
): Promise<RotatedSecret> {
  const record = visibleRecord(await ports.catalog.read(), name, caller);
  const state = managedSecretOf(record, caller, 'show');
  const key = requireSecretsKey(ports.secretsKey, `the managed secret of "${name}"`);
  const now = ports.now();
  const open = revealManagedSecret(key, sealBindingOf(record), state, now);
  await recordSecretRead(ports, caller, record, open, now);
  return { name, current: open.current, createdAt: open.createdAt, previous: open.previous };
}

/** The record's managed secret state; NOT_MANAGED (409) for one that lives elsewhere. */
function managedSecretOf(record: SubscriberRecord, caller: Caller, verb: 'show' | 'rotate') {
  const state = record.secret;
  if (state === undefined || !('managed' in state))
    throw new CatalogError(
      'NOT_MANAGED',
      `${record.definition.name}'s secret is not managed (${caller.scope.kind === 'operator' ? `${describeSecret(record)}: ${verb} it where it lives, or apply {"managed": true}` : 'PUT {"secret": {"managed": true}} first'})`,
      false,
    );
  return state;
}

/**
 * A new managed secret for one of the caller's subscribers; the old one keeps signing for
 * `graceMs`. The answer holds the secrets in clear: the receiver's owner needs them to verify.
 */
export async function rotateSecret(
  ports: ManagementPorts,
  caller: Caller,
  name: string,
  options: { readonly graceMs?: number | undefined },
): Promise<RotatedSecret> {
  const record = visibleRecord(await ports.catalog.read(), name, caller);
  const state = managedSecretOf(record, caller, 'rotate');
  const key = requireSecretsKey(ports.secretsKey, `the managed secret of "${name}"`);
  const now = ports.now();
  const graceMs = options.graceMs ?? DEFAULT_ROTATION_GRACE_MS;
  const rotation = secretRotation(key, record, state, { actor: auditActorOf(caller), now, graceMs });
  await ports.catalog.write([rotation.next]);
  const open = revealManagedSecret(key, sealBindingOf(record), rotation.state, now);
  const secrets = { name, current: open.current, createdAt: open.createdAt, previous: open.previous };
  // The rotation happened and its receiver needs the new secret: a trail that cannot be written
  // is said beside the secrets, not instead of them.
  try {
    await ports.audit.write([rotation.audit]);
    return secrets;
  } catch (err) {
    return { ...secrets, auditError: err instanceof Error ? err.message : String(err) };
  }
}
