import {
  type NameBinding,
  type SubscriberRecord,
  type TenantId,
  topicCollisionKey,
} from '@hookstream/contracts';
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

type NamedDefinition = { readonly name: string; readonly tenant?: TenantId | undefined };

/** Why a name cannot be taken: someone else holds it, or a name Kafka cannot tell from it is held. */
interface Unavailable {
  readonly name: string;
  readonly twin: boolean;
}

/**
 * Every name the catalog holds (a live record, a binding, or registrations left), by
 * topicCollisionKey: the names Kafka could not tell apart share an entry.
 */
function heldByKey(snapshot: CatalogSnapshot): Map<string, Set<string>> {
  const byKey = new Map<string, Set<string>>();
  const hold = (name: string) => {
    const key = topicCollisionKey(name);
    const names = byKey.get(key) ?? new Set<string>();
    names.add(name);
    byKey.set(key, names);
  };
  for (const name of snapshot.subscribers.keys()) hold(name);
  for (const name of snapshot.bindings.keys()) hold(name);
  for (const [name, keys] of snapshot.registrations) if (keys.length > 0) hold(name);
  return byKey;
}

/**
 * Held names that differ only by '.' against '_', in groups, sorted: written before names were
 * compared so (or by a raw catalog writer). Their subscribers would share topics, so operators
 * are shown them to delete one of each group. Pure.
 */
export function nameCollisions(snapshot: CatalogSnapshot): string[][] {
  return [...heldByKey(snapshot).values()]
    .filter((names) => names.size > 1)
    .map((names) => [...names].sort())
    .sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

function unavailable(
  snapshot: CatalogSnapshot,
  definitions: readonly NamedDefinition[],
  actor: Actor,
): Unavailable[] {
  const held = heldByKey(snapshot);
  const asked = new Map<string, Set<string>>();
  for (const { name } of definitions) {
    const key = topicCollisionKey(name);
    asked.set(key, (asked.get(key) ?? new Set<string>()).add(name));
  }
  return definitions.flatMap((d): Unavailable[] => {
    const holder = nameHolder(snapshot, d.name);
    if (holder === null) {
      // Only a new name is judged by its twins: a pair held from before stays manageable (and
      // listed by nameCollisions) until the operator deletes one.
      const key = topicCollisionKey(d.name);
      const twins = [...(held.get(key) ?? []), ...(asked.get(key) ?? [])].filter((n) => n !== d.name);
      return twins.length > 0 ? [{ name: d.name, twin: true }] : [];
    }
    if (holder.tenant === (d.tenant ?? null)) return [];
    return holder.live && actor.kind === 'operator' ? [] : [{ name: d.name, twin: false }];
  });
}

/**
 * The names of these definitions that their tenant (or, without one, the operator's no-tenant)
 * may not take: held by another tenant, or by a tenant when the definition has none, or by no
 * tenant when it has one; and, for anyone, a new name whose twin (the same but for '.' against
 * '_', which Kafka cannot tell apart in topic names) is held or asked for in the same batch. The
 * operator's change of a live record's tenant is left to planApply (TENANT_CHANGED, which names
 * the tenants: the operator sees them all). Pure.
 */
export function unavailableNames(
  snapshot: CatalogSnapshot,
  definitions: readonly NamedDefinition[],
  actor: Actor,
): string[] {
  return unavailable(snapshot, definitions, actor).map((u) => u.name);
}

/**
 * Refuses the whole apply when a name is unavailable (NAME_UNAVAILABLE; the management API
 * answers 409 `name_unavailable`). The message says that, and for a twin the rule that makes it
 * so; never who holds the name, nor whether it is live.
 */
export function refuseUnavailableNames(
  snapshot: CatalogSnapshot,
  definitions: readonly NamedDefinition[],
  actor: Actor,
): void {
  const refused = unavailable(snapshot, definitions, actor);
  if (refused.length === 0) return;
  const names = refused.map((u) => u.name);
  const rule = refused.some((u) => u.twin)
    ? " (Kafka cannot tell '.' from '_' in topic names, so a name that differs from a held one only so is held too)"
    : '';
  throw new CatalogError(
    'NAME_UNAVAILABLE',
    `${names.map((n) => `"${n}"`).join(', ')}: ${names.length === 1 ? 'the name is' : 'these names are'} unavailable${rule}; nothing was written`,
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
