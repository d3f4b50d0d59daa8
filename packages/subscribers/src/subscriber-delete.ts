import type { NameBinding } from '@hookstream/contracts';
import { type AuditContext, auditRecordOf } from './audit-records.ts';
import type { CatalogSnapshot } from './catalog-records.ts';
import { CatalogError } from './errors.ts';
import { type Actor, planDelete } from './name-holders.ts';
import { RevisionMismatchError } from './revision-mismatch.ts';
import type { PurgeReport, SubscriberCatalog } from './subscriber-catalog.ts';

export interface DeleteRequest {
  readonly name: string;
  readonly actor: Actor;
  /** The operator's `--purge`; a tenant's delete purges whatever this says. */
  readonly purge: boolean;
  readonly now?: Date;
  /** The catalog as already read (the CLI reads it to confirm first); read afresh when absent. */
  readonly snapshot?: CatalogSnapshot;
  /** How long a tenant's delete waits for the fleet to leave the group before purging (default 60 s). */
  readonly releaseTimeoutMs?: number;
  /** Where the delete's audit record goes, once it is done; absent: none is written. */
  readonly audit?: AuditContext;
  /**
   * The record's revision the delete was decided on (the API's If-Match): checked before
   * anything is purged, and the tombstone is written only on it (RevisionMismatchError otherwise).
   */
  readonly expectedRevision?: string;
}

export interface DeleteResult {
  readonly name: string;
  /** A live record was tombstoned (false: only a bound name was purged). */
  readonly deleted: boolean;
  readonly purged: PurgeReport | null;
  /** The name stays bound to its tenant (or to none) after this delete. */
  readonly bound: boolean;
}

/**
 * Deletes a subscriber as its actor may (planDelete). The operator's purge comes first, since
 * Kafka refuses to delete a group with members and the record must then still be there (the
 * operator stops its pushers first). A tenant cannot stop pushers: its live record is tombstoned
 * first, with a binding to its tenant so the name is never free while anything of it is left,
 * then the purge waits for the fleet to leave the group. If it does not in time, the subscriber is
 * deleted and its name still bound to the tenant: the same delete again finishes the purge.
 */
export async function deleteSubscriber(
  catalog: SubscriberCatalog,
  request: DeleteRequest,
): Promise<DeleteResult> {
  const snapshot = request.snapshot ?? (await catalog.read());
  const audit = request.audit;
  if (audit === undefined) return deleteWithoutAudit(catalog, { ...request, snapshot });
  const before = snapshot.subscribers.get(request.name);
  const record = (action: 'subscriber.deleted' | 'subscriber.purged', purged: PurgeReport | null) =>
    auditRecordOf({
      actor: audit.actor,
      action,
      subscriber: request.name,
      before,
      after: null,
      tenant: snapshot.bindings.get(request.name)?.tenant ?? undefined,
      ...(purged === null ? {} : { detail: { group: purged.group, topics: purged.topics.slice(0, 100) } }),
      now: request.now ?? new Date(),
    });
  let result: DeleteResult;
  try {
    result = await deleteWithoutAudit(catalog, { ...request, snapshot });
  } catch (err) {
    // A tenant's delete whose purge must wait: the record is gone all the same, and so recorded.
    if (err instanceof CatalogError && err.code === 'GROUP_IN_USE' && before !== undefined)
      await audit.trail.write([record('subscriber.deleted', null)]);
    throw err;
  }
  // A purge of a name left bound has no record before (before: null); it is still that name's purge.
  await audit.trail.write([
    record(result.purged === null ? 'subscriber.deleted' : 'subscriber.purged', result.purged),
  ]);
  return result;
}

async function deleteWithoutAudit(catalog: SubscriberCatalog, request: DeleteRequest): Promise<DeleteResult> {
  const snapshot = request.snapshot ?? (await catalog.read());
  const now = request.now ?? new Date();
  const plan = planDelete(snapshot, request.name, request.actor, { purge: request.purge, now });
  const registrations = snapshot.registrations.get(plan.name) ?? [];
  const expected = request.expectedRevision;
  if (expected !== undefined && snapshot.revisions.get(plan.name) !== expected)
    throw new RevisionMismatchError(plan.name, expected, snapshot.revisions.get(plan.name) ?? null);
  const remove = (binding: NameBinding | null) =>
    expected === undefined
      ? catalog.remove(plan.name, binding)
      : catalog.removeIfRevision(plan.name, expected, binding);
  if (request.actor.kind === 'tenant') {
    if (plan.record !== undefined)
      await remove({ name: plan.name, tenant: request.actor.tenant, boundAt: now.toISOString() });
    if (!(await catalog.groupEmptied(plan.name, request.releaseTimeoutMs ?? 60_000)))
      throw new CatalogError(
        'GROUP_IN_USE',
        `${plan.name} is deleted, but its pushers have not left its group yet; its name stays yours: delete it again to purge it`,
        true,
      );
    const purged = await catalog.purge(plan.name, registrations);
    return { name: plan.name, deleted: plan.record !== undefined, purged, bound: false };
  }
  const purged = plan.purge ? await catalog.purge(plan.name, registrations) : null;
  if (plan.record !== undefined) await remove(plan.binding);
  return { name: plan.name, deleted: plan.record !== undefined, purged, bound: plan.binding !== null };
}
