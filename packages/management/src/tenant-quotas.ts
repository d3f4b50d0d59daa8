import { TenantId } from '@hookstream/contracts';
import type { CatalogSnapshot } from '@hookstream/subscribers';
import { z } from 'zod';
import type { Caller } from './caller.ts';
import { ManagementError } from './errors.ts';

/** How many subscribers a tenant may hold unless the operator says otherwise. */
export const DEFAULT_TENANT_MAX_SUBSCRIBERS = 100;
/** Past any sensible quota: a typo, not a plan. */
const MAX_QUOTA = 100_000;

const Quota = z.number().int().min(0).max(MAX_QUOTA);

/**
 * What one tenant may make through the management API. Each subscriber makes its own topics (a
 * tier per retry delay, at most 20, a DLQ and a replay log), each with the events topic's
 * partitions at most, so its subscriber count bounds its topics and partitions too.
 */
export const TenantQuotas = z.object({
  maxSubscribers: Quota,
  /** Per tenant, over maxSubscribers. */
  byTenant: z.record(TenantId, Quota),
});
export type TenantQuotas = z.infer<typeof TenantQuotas>;

export const DEFAULT_TENANT_QUOTAS: TenantQuotas = {
  maxSubscribers: DEFAULT_TENANT_MAX_SUBSCRIBERS,
  byTenant: {},
};

/**
 * `acme=500,globex=20` (the operator's overrides) as TenantQuotas' byTenant; throws a message
 * naming the bad entry.
 */
export function parseTenantQuotaList(text: string): Record<string, number> {
  const byTenant: Record<string, number> = {};
  for (const entry of text.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const [tenant, count, ...rest] = entry.split('=');
    const parsed = z.tuple([TenantId, z.coerce.number().pipe(Quota)]).safeParse([tenant, count]);
    if (rest.length > 0 || !parsed.success)
      throw new Error(`'${entry.slice(0, 80)}': expected <tenant>=<0-${MAX_QUOTA}>`);
    byTenant[parsed.data[0]] = parsed.data[1];
  }
  return byTenant;
}

/**
 * Refuses a tenant's new subscriber past its quota (409 quota_exceeded); the operator's writes
 * are not counted against it. Counts the tenant's live records in this snapshot.
 */
export function refuseOverQuota(
  snapshot: CatalogSnapshot,
  caller: Caller,
  quotas: TenantQuotas = DEFAULT_TENANT_QUOTAS,
): void {
  if (caller.scope.kind !== 'tenant') return;
  const { tenant } = caller.scope;
  const limit = quotas.byTenant[tenant] ?? quotas.maxSubscribers;
  let held = 0;
  for (const record of snapshot.subscribers.values()) if (record.definition.tenant === tenant) held += 1;
  if (held < limit) return;
  throw new ManagementError(
    'quota_exceeded',
    `the tenant holds ${held} subscribers, its quota of ${limit}: delete one, or ask the operator for more; nothing was written`,
    { details: [{ path: 'tenant', message: `at most ${limit} subscribers` }] },
  );
}
