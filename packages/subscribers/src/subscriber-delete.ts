import type { CatalogSnapshot } from './catalog-records.ts';
import { type Actor, planDelete } from './name-holders.ts';
import type { PurgeReport, SubscriberCatalog } from './subscriber-catalog.ts';

export interface DeleteRequest {
  readonly name: string;
  readonly actor: Actor;
  /** The operator's `--purge`; a tenant's delete purges whatever this says. */
  readonly purge: boolean;
  readonly now?: Date;
  /** The catalog as already read (the CLI reads it to confirm first); read afresh when absent. */
  readonly snapshot?: CatalogSnapshot;
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
 * Deletes a subscriber as its actor may (planDelete): purge first, since Kafka refuses to delete
 * a group with members and the record must then still be there; then the record's tombstone,
 * with the name's binding when it is kept.
 */
export async function deleteSubscriber(
  catalog: SubscriberCatalog,
  request: DeleteRequest,
): Promise<DeleteResult> {
  const snapshot = request.snapshot ?? (await catalog.read());
  const plan = planDelete(snapshot, request.name, request.actor, {
    purge: request.purge,
    now: request.now ?? new Date(),
  });
  const purged = plan.purge
    ? await catalog.purge(plan.name, snapshot.registrations.get(plan.name) ?? [])
    : null;
  if (plan.record !== undefined) await catalog.remove(plan.name, plan.binding);
  return { name: plan.name, deleted: plan.record !== undefined, purged, bound: plan.binding !== null };
}
