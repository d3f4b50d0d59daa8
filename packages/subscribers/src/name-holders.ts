import type { NameBinding, SubscriberRecord, TenantId } from '@hookstream/contracts';
import type { CatalogSnapshot } from './catalog-records.ts';
import { CatalogError } from './errors.ts';
import { knownSubscriber } from './state-change.ts';

/**
 * Whose hand does something to the catalog: the operator (the CLI, the console) sees and may do
 * everything; a tenant (the management API's `token@tenant`) only its own subscribers.
 */
export type Actor = { readonly kind: 'operator' } | { readonly kind: 'tenant'; readonly tenant: TenantId };

export const OPERATOR: Actor = { kind: 'operator' };

/** Who holds a name: the tenant (null: none, an operator's subscriber), and whether its record is live. */
export interface NameHolder {
  readonly tenant: TenantId | null;
  /** A catalog record exists; false: deleted, but its group, tiers or DLQ may be left. */
  readonly live: boolean;
}

/**
 * Who holds the name, or null when it is free. A live record holds it; after a delete without a
 * purge, its binding does; a name with ledger registrations but neither was deleted without a
 * purge before bindings existed, when subscribers had no tenant: it is held by no tenant. Pure.
 */
export function nameHolder(snapshot: CatalogSnapshot, name: string): NameHolder | null {
  const record = snapshot.subscribers.get(name);
  if (record !== undefined) return { tenant: record.definition.tenant ?? null, live: true };
  const binding = snapshot.bindings.get(name);
  if (binding !== undefined) return { tenant: binding.tenant, live: false };
  if ((snapshot.registrations.get(name)?.length ?? 0) > 0) return { tenant: null, live: false };
  return null;
}

/**
 * The names of these definitions that their tenant (or, without one, the operator's no-tenant)
 * may not take: held by another tenant, or by a tenant when the definition has none, or by no
 * tenant when it has one. The operator's change of a live record's tenant is left to planApply
 * (TENANT_CHANGED, which names the tenants: the operator sees them all). Pure.
 */
export function unavailableNames(
  snapshot: CatalogSnapshot,
  definitions: readonly { readonly name: string; readonly tenant?: TenantId | undefined }[],
  actor: Actor,
): string[] {
  return definitions
    .filter((d) => {
      const holder = nameHolder(snapshot, d.name);
      if (holder === null || holder.tenant === (d.tenant ?? null)) return false;
      return !(holder.live && actor.kind === 'operator');
    })
    .map((d) => d.name);
}

/**
 * Refuses the whole apply when a name is unavailable (NAME_UNAVAILABLE; the management API
 * answers 409 `name_unavailable`). The message says that and nothing else: not who holds the
 * name, nor whether it is live.
 */
export function refuseUnavailableNames(
  snapshot: CatalogSnapshot,
  definitions: readonly { readonly name: string; readonly tenant?: TenantId | undefined }[],
  actor: Actor,
): void {
  const names = unavailableNames(snapshot, definitions, actor);
  if (names.length === 0) return;
  throw new CatalogError(
    'NAME_UNAVAILABLE',
    `${names.map((n) => `"${n}"`).join(', ')}: ${names.length === 1 ? 'the name is' : 'these names are'} unavailable; nothing was written`,
    false,
  );
}

/** What a delete does, decided before anything is touched. */
export interface DeletePlan {
  readonly name: string;
  /** The live record, tombstoned; undefined when only the name was left bound. */
  readonly record: SubscriberRecord | undefined;
  /** Group, tiers, DLQ, replay log, registrations and binding deleted: the name is free after. */
  readonly purge: boolean;
  /** Written when not purging: the name stays with the record's tenant. */
  readonly binding: NameBinding | null;
}

/**
 * A tenant's delete always purges: what the tenant's subscriber left must not wait for another
 * tenant to inherit it, and the tenant cannot see whether an operator would clean up. An
 * operator's delete purges when asked; otherwise the name stays bound to the record's tenant (or
 * to none). A tenant asking about a name it does not hold is told it does not exist, as if it
 * were free. Pure.
 */
export function planDelete(
  snapshot: CatalogSnapshot,
  name: string,
  actor: Actor,
  options: { readonly purge: boolean; readonly now: Date },
): DeletePlan {
  const holder = nameHolder(snapshot, name);
  const record = snapshot.subscribers.get(name);
  if (actor.kind === 'tenant') {
    if (holder === null || holder.tenant !== actor.tenant) throw unknown(name);
    return { name, record, purge: true, binding: null };
  }
  if (holder === null) {
    // Throws, and tells the operator when the record is there but unreadable.
    knownSubscriber(snapshot, name);
    throw unknown(name);
  }
  if (record === undefined && !options.purge)
    throw new CatalogError(
      'UNKNOWN_SUBSCRIBER',
      `${name} is not in the catalog (deleted; its name stays bound until its group, tiers and DLQ are purged: delete ${name} --purge)`,
      false,
    );
  if (options.purge) return { name, record, purge: true, binding: null };
  return {
    name,
    record,
    purge: false,
    binding: { name, tenant: holder.tenant, boundAt: options.now.toISOString() },
  };
}

function unknown(name: string): CatalogError {
  return new CatalogError('UNKNOWN_SUBSCRIBER', `no subscriber "${name}" in the catalog`, false);
}
