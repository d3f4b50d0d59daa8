import {
  definitionFilterProblems,
  definitionRuleBroken,
  FILTER_TOO_LARGE,
  filterTooLarge,
  repositoryEventCatalog,
  type SubscriberRecord,
  SubscriberSpec,
} from '@hookstream/contracts';
import { type CatalogSnapshot, knownSubscriber, privateDestinations } from '@hookstream/subscribers';
import type { Caller } from './caller.ts';
import { type ErrorDetail, ManagementError } from './errors.ts';

/** Whether the caller may see this subscriber: the operator every one, a tenant those naming it. */
export function visibleTo(caller: Caller, record: Pick<SubscriberRecord, 'definition'>): boolean {
  return caller.scope.kind === 'operator' || record.definition.tenant === caller.scope.tenant;
}

/**
 * The subscriber's record when the caller may see it. Another tenant's is `not_found`, as an
 * absent one is, never `forbidden`: a tenant learns nothing of names it does not hold.
 */
export function visibleRecord(snapshot: CatalogSnapshot, name: string, caller: Caller): SubscriberRecord {
  const record = snapshot.subscribers.get(name);
  if (record !== undefined && visibleTo(caller, record)) return record;
  if (caller.scope.kind === 'operator') knownSubscriber(snapshot, name);
  throw notFound(name);
}

export function notFound(name: string): ManagementError {
  return new ManagementError('not_found', `no subscriber "${name}"`);
}

/**
 * What the operator lets every tenant's subscriber do beyond the default. `privateNetwork`: its
 * URL may be a private address (a platform whose customers are teams on the same private network,
 * or a local stack); the tenant still cannot choose it, the operator chose it for all.
 */
export interface TenantPolicy {
  readonly privateNetwork: boolean;
}

export const DEFAULT_TENANT_POLICY: TenantPolicy = { privateNetwork: false };

/**
 * A PUT body as the definition of subscriber `name`: the path names it (a body `name` must
 * match); a tenant's body gets its tenant, and may not name another (403 `forbidden_tenant`).
 * Validated as `subscribers apply` validates a file (422 `invalid_definition`, field by field),
 * then held to the tenant's limits. Pure.
 */
export function specFor(
  caller: Caller,
  name: string,
  body: unknown,
  policy: TenantPolicy = DEFAULT_TENANT_POLICY,
): SubscriberSpec {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ManagementError(
      'invalid_definition',
      'the body must be a JSON object: a subscriber definition',
    );
  const fields = body as Record<string, unknown>;
  if (fields.name !== undefined && fields.name !== name)
    throw new ManagementError('invalid_definition', `the body's "name" must be the path's, "${name}"`, {
      details: [{ path: 'name', message: `must be "${name}"` }],
    });
  let input: Record<string, unknown> = { ...fields, name };
  if (caller.scope.kind === 'tenant') {
    if (fields.tenant !== undefined && fields.tenant !== caller.scope.tenant)
      throw new ManagementError(
        'forbidden_tenant',
        'a tenant token creates subscribers of its own tenant only',
      );
    input = { ...input, tenant: caller.scope.tenant };
    if (policy.privateNetwork) input = { ...input, allowPrivateNetwork: true };
  }
  if (filterTooLarge(input.filter))
    throw new ManagementError('invalid_definition', 'the definition is invalid; nothing was written', {
      details: [{ path: 'filter', message: FILTER_TOO_LARGE.slice('filter: '.length) }],
    });
  const parsed = SubscriberSpec.safeParse(input);
  if (!parsed.success)
    throw new ManagementError('invalid_definition', 'the definition is invalid; nothing was written', {
      details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  // A rule across fields (maxHoldMs only with strict order…), as apply checks it: 422, not a failed write.
  const broken = definitionRuleBroken(parsed.data);
  if (broken !== null)
    throw new ManagementError('invalid_definition', 'the definition is invalid; nothing was written', {
      details: [broken],
    });
  if (caller.scope.kind === 'tenant') refuseOperatorOnlyFields(parsed.data, policy);
  const aimed = privateDestinations(parsed.data);
  if (aimed.length > 0)
    throw new ManagementError('invalid_definition', 'the definition is invalid; nothing was written', {
      details: aimed.map((a) => ({ path: a.path, message: a.message })),
    });
  // A filter that could never hold (a pointer no schema of its types has) is refused, as by apply.
  const filterProblems = definitionFilterProblems(parsed.data, repositoryEventCatalog());
  if (filterProblems.length > 0)
    throw new ManagementError(
      'invalid_definition',
      'a data pointer names no field of the types it takes; nothing was written',
      {
        // `filter.exact./a: …` or `batch.groupBy: …`: the part before the first space names it.
        details: filterProblems.map((p) => ({ path: p.split(/[ :]/, 1)[0] ?? 'filter', message: p })),
      },
    );
  return parsed.data;
}

/**
 * What only the operator may set: a private address or plain http to a public host (the
 * fleet's network is the operator's), and `{env}` or `{file}` references, which read the fleet's
 * own environment and files. A tenant's secret is managed or none; so are its OAuth2 client
 * secret and client key. (Its token URL is held to the address rule at start, as its URL is.)
 */
export function refuseOperatorOnlyFields(
  spec: SubscriberSpec,
  policy: TenantPolicy = DEFAULT_TENANT_POLICY,
): void {
  const problems: ErrorDetail[] = [];
  if (spec.allowPrivateNetwork && !policy.privateNetwork)
    problems.push({ path: 'allowPrivateNetwork', message: 'only the operator may allow private addresses' });
  if (spec.allowInsecureHttp === true)
    problems.push({ path: 'allowInsecureHttp', message: 'only the operator may allow plain http' });
  if (spec.secret !== undefined && !('managed' in spec.secret))
    problems.push({ path: 'secret', message: 'a tenant may use a managed secret ({"managed": true}) only' });
  for (const [header, value] of Object.entries(spec.headers))
    if (typeof value === 'object' && 'env' in value)
      problems.push({
        path: `headers.${header}`,
        message: 'only the operator may use {"env": …} references',
      });
  if (spec.oauth2 !== undefined && 'env' in spec.oauth2.clientSecret)
    problems.push({
      path: 'oauth2.clientSecret',
      message: 'a tenant may use a managed client secret ({"managed": true}) only',
    });
  if (spec.clientCertificate !== undefined && 'env' in spec.clientCertificate.key)
    problems.push({
      path: 'clientCertificate.key',
      message: 'a tenant may use a managed key ({"managed": true}) only',
    });
  if (problems.length > 0)
    throw new ManagementError(
      'forbidden_field',
      'a tenant token may not set these fields; nothing was written',
      {
        details: problems,
      },
    );
}
