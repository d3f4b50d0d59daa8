import { z } from 'zod';
import { TenantId } from './envelope.ts';
import { SubscriberName } from './topics.ts';

/**
 * A deleted subscriber's name stays with its tenant while its group (the ledger), tiers or DLQ
 * may still exist: no other tenant may take the name and inherit them (docs/subscribers.md,
 * "Names and tenants"). Written to the catalog topic when a subscriber is deleted without a
 * purge, tombstoned by the purge. `tenant` null: an operator's subscriber, of no tenant.
 */
export const NameBinding = z.object({
  name: SubscriberName,
  tenant: TenantId.nullable(),
  boundAt: z.iso.datetime({ offset: true }),
});
export type NameBinding = z.infer<typeof NameBinding>;

const SUFFIX = '/@tenant';

/**
 * `<name>/@tenant`. It contains '/', so readers from before bindings take it for a registration
 * key, and its last segment is no subscriber name: they ignore it (registration problems are not
 * reported as skipped subscribers) and it cannot make any subscriber look registered.
 */
export function nameBindingKey(name: SubscriberName): string {
  return `${name}${SUFFIX}`;
}

/** The subscriber name a binding key binds, or null for any other key. */
export function nameOfBindingKey(key: string): string | null {
  if (!key.endsWith(SUFFIX)) return null;
  const name = key.slice(0, -SUFFIX.length);
  return SubscriberName.safeParse(name).success ? name : null;
}
