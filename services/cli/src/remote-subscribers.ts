import { readFile, stat } from 'node:fs/promises';
import type { ApiClient, SubscriberDefinition, SubscriberResource } from '@hookstream/api-client';
import { CatalogError, formatHeadroomCell } from '@hookstream/subscribers';
import { formatTable } from '@hookstream/terminal';
import {
  confirmPurge,
  describeState,
  formatCount,
  parseDuration,
  printDeleted,
  printJson,
  printSecrets,
} from './subscribers-output.ts';
import { rewindCommand } from './subscribers-rewind.ts';
import { formatAge } from './tool-errors.ts';

/** The actions `subscribers` runs over --api, and the options each takes there (besides --json). */
export const REMOTE_ALLOWED: Record<string, readonly string[]> = {
  apply: [],
  list: [],
  show: [],
  pause: ['reason'],
  resume: [],
  delete: ['purge', 'yes'],
  rewind: ['to', 'dry-run'],
  'secret show': [],
  'secret rotate': ['grace'],
};

export interface RemoteSubscriberOptions {
  readonly json: boolean;
  readonly reason?: string | undefined;
  readonly purge: boolean;
  readonly yes: boolean;
  readonly grace?: string | undefined;
  readonly to?: string | undefined;
  readonly 'dry-run': boolean;
}

function bad(message: string): CatalogError {
  return new CatalogError('BAD_OPTION', message, false);
}

/** `subscribers <action>` over the management API: the same output as on Kafka where the API has it. */
export async function remoteSubscribers(
  api: ApiClient,
  action: string,
  target: string,
  options: RemoteSubscriberOptions,
): Promise<number> {
  switch (action) {
    case 'apply':
      return apply(api, target, options);
    case 'list':
      return list(api, options);
    case 'show':
      return show(api, target, options);
    case 'pause':
    case 'resume':
      return setState(api, action, target, options);
    case 'delete':
      return remove(api, target, options);
    case 'rewind':
      return rewindCommand(
        target,
        { to: options.to, dryRun: options['dry-run'], json: options.json },
        (ask) => api.rewindSubscriber(target, ask),
      );
    case 'secret show':
      printSecrets({ ...(await api.getSecret(target)), rotated: false }, options);
      return 0;
    case 'secret rotate':
      return rotate(api, target, options);
    default:
      throw bad(`${action} does not work over --api`);
  }
}

/** One definition file, PUT under its name: created, changed or unchanged, as `apply` says it. */
async function apply(api: ApiClient, file: string, options: RemoteSubscriberOptions): Promise<number> {
  if ((await stat(file)).isDirectory())
    throw bad('over --api, apply takes one definition file (a directory is applied on Kafka)');
  let definition: unknown;
  try {
    definition = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new CatalogError('BAD_DEFINITION', `${file}: not JSON: ${(err as Error).message}`, false);
  }
  const name = (definition as { name?: unknown } | null)?.name;
  if (typeof name !== 'string')
    throw new CatalogError('BAD_DEFINITION', `${file}: a definition names its subscriber ("name")`, false);
  // The client validates it with the API's own schema before sending (its fields named), the API again.
  const answer = await api.putSubscriber(name, definition as SubscriberDefinition);
  if (options.json) printJson({ file, ...answer });
  else
    process.stdout.write(
      `${answer.action}  ${name}  (${file})\n\n${answer.action === 'unchanged' ? 0 : 1} written (ETag ${answer.subscriber.etag})\n`,
    );
  return 0;
}

async function list(api: ApiClient, options: RemoteSubscriberOptions): Promise<number> {
  const items = [];
  let headroomError: string | null = null;
  let cursor: string | undefined;
  // Page by page (the API's largest), so the headroom error of any page is kept.
  do {
    const page = await api.listSubscribers({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    items.push(...page.items);
    headroomError ??= page.retentionHeadroomError;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  if (options.json) {
    printJson({
      api: api.baseUrl,
      subscribers: items,
      ...(headroomError === null ? {} : { retentionHeadroomError: headroomError }),
    });
    return 0;
  }
  if (headroomError !== null) process.stderr.write(`retention headroom not measured: ${headroomError}\n\n`);
  if (items.length === 0) {
    process.stdout.write('no subscribers (add some with hookstream subscribers apply)\n');
    return 0;
  }
  const tenants = items.some((i) => i.tenant !== null);
  const rows = items.map((i) => [
    i.name,
    i.state.kind,
    ...(tenants ? [i.tenant ?? '-'] : []),
    formatCount(i.lag),
    i.oldestUnsettledAgeMs === null ? '-' : formatAge(i.oldestUnsettledAgeMs),
    formatHeadroomCell(i.retentionHeadroomSeconds, null),
    formatCount(i.dlqDepth),
    i.breaker ?? '-',
  ]);
  const headers = [
    'name',
    'state',
    ...(tenants ? ['tenant'] : []),
    'lag',
    'oldest unsettled',
    'retention headroom',
    'dlq',
    'breaker',
  ];
  process.stdout.write(`${formatTable(headers, rows)}\n\n${items.length} subscriber(s) at ${api.baseUrl}\n`);
  return 0;
}

async function show(api: ApiClient, name: string, options: RemoteSubscriberOptions): Promise<number> {
  const subscriber = await api.getSubscriber(name);
  if (options.json) {
    printJson(subscriber);
    return 0;
  }
  const out = [
    `subscriber ${name}: ${describeState(subscriber.state)}`,
    `created ${subscriber.createdAt}, updated ${subscriber.updatedAt}`,
    `secret: ${describeSecret(subscriber.secret)}`,
    `etag: ${subscriber.etag}`,
    '',
    JSON.stringify(subscriber.definition, null, 2),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

/** The secret as the API describes it (never the secret itself). */
function describeSecret(secret: SubscriberResource['secret']): string {
  if (secret === null) return 'none (requests are unsigned)';
  if (typeof secret.env === 'string') return `from environment variable ${secret.env}`;
  if (typeof secret.file === 'string') return `from file ${secret.file}`;
  return secret.managed === true ? `managed (since ${String(secret.createdAt)})` : JSON.stringify(secret);
}

async function setState(
  api: ApiClient,
  action: 'pause' | 'resume',
  name: string,
  options: RemoteSubscriberOptions,
): Promise<number> {
  const answer =
    action === 'pause'
      ? await api.pauseSubscriber(name, options.reason === undefined ? {} : { reason: options.reason })
      : await api.resumeSubscriber(name);
  if (options.json) printJson(answer);
  else
    process.stdout.write(
      answer.changed ? `${name}: ${answer.state.kind}\n` : `${name} is already ${answer.state.kind}\n`,
    );
  if (answer.noticeError !== null)
    process.stderr.write(
      `hookstream subscribers resume: ${name} is active, but subscriber.enabled could not be published: ${answer.noticeError}\n`,
    );
  return 0;
}

async function remove(api: ApiClient, name: string, options: RemoteSubscriberOptions): Promise<number> {
  if (options.yes && !options.purge) throw bad('--yes only applies with --purge');
  // Unknown (or another tenant's) is refused before asking for a confirmation.
  await api.getSubscriber(name);
  if (options.purge && !options.yes && !(await confirmPurge(name))) return 1;
  const answer = await api.deleteSubscriber(name, { purge: options.purge });
  if (options.json) printJson(answer);
  else printDeleted(name, answer);
  return 0;
}

async function rotate(api: ApiClient, name: string, options: RemoteSubscriberOptions): Promise<number> {
  const graceMs = options.grace === undefined ? undefined : parseDuration('--grace', options.grace);
  const answer = await api.rotateSecret(name, graceMs === undefined ? {} : { graceMs });
  printSecrets({ ...answer, rotated: true }, options);
  return 0;
}
