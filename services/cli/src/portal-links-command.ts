import { parseArgs } from 'node:util';
import type { ApiClient, PortalLinkList } from '@hookstream/api-client';
import { HookstreamError } from '@hookstream/contracts';
import { formatTable } from '@hookstream/terminal';
import { requiredRemoteApi } from './remote-api.ts';
import { printJson } from './subscribers-output.ts';
import { reportToolError } from './tool-errors.ts';

export const PORTAL_LINKS_USAGE = `Usage: hookstream portal-links create --tenant <t> [--scope read|manage] [--subscriber <name,…>] [--type <type,…>] [--user <who>] [--lifetime <seconds>] [--json]
       hookstream portal-links list [--tenant <t>] [--all] [--limit <n>] [--cursor <id>] [--json]
       hookstream portal-links revoke <link-id> [--json]

The customer portal's links (docs/portal.md), over the management API with an operator token:
--api <url> (or HOOKSTREAM_API_URL) and HOOKSTREAM_API_TOKEN. A tenant's token is refused (403).

create   a link for one tenant: read (default) or manage, limited to endpoints or event types
         when named, for --lifetime seconds (60 to 604800, default 3600). Its URL holds its
         secret and is shown this once.
list     the active links (--all: the expired and revoked too), a page at a time
revoke   ends a link at once

Options:
  --json   the API's answer as JSON, for scripts`;

const OPTIONS = {
  api: { type: 'string' },
  tenant: { type: 'string' },
  scope: { type: 'string' },
  subscriber: { type: 'string' },
  type: { type: 'string' },
  user: { type: 'string' },
  lifetime: { type: 'string' },
  all: { type: 'boolean' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const TAKES: Readonly<Record<string, readonly string[]>> = {
  create: ['tenant', 'scope', 'subscriber', 'type', 'user', 'lifetime'],
  list: ['tenant', 'all', 'limit', 'cursor'],
  revoke: [],
};

/** `hookstream portal-links`: mint, list and revoke portal links over the management API. */
export async function portalLinksCommand(args: readonly string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: OPTIONS });
    const [action, ...targets] = positionals;
    if (values.help) {
      process.stdout.write(`${PORTAL_LINKS_USAGE}\n`);
      return 0;
    }
    const takes = action === undefined ? undefined : TAKES[action];
    if (takes === undefined) {
      process.stderr.write(`${PORTAL_LINKS_USAGE}\n`);
      return 2;
    }
    for (const [option, value] of Object.entries(values))
      if (value !== undefined && !['api', 'json', 'help', ...takes].includes(option))
        throw bad(`--${option} does not apply to portal-links ${action}`);
    if (targets.length !== (action === 'revoke' ? 1 : 0))
      throw bad(
        action === 'revoke'
          ? 'portal-links revoke takes one <link-id>'
          : `portal-links ${action} takes no positional argument`,
      );
    const api = requiredRemoteApi('portal-links', values.api, process.env);
    return await run(api, action as string, targets[0], values);
  } catch (err) {
    return reportToolError('portal-links', err);
  }
}

async function run(api: ApiClient, action: string, id: string | undefined, values: Values): Promise<number> {
  if (action === 'create') {
    if (values.tenant === undefined) throw bad('portal-links create needs --tenant');
    // The client checks the request against the contract (scope, names, lifetime bounds) before sending.
    const minted = await api.createPortalLink({
      tenant: values.tenant,
      ...(values.scope === undefined ? {} : { scope: values.scope as 'read' }),
      ...(values.subscriber === undefined ? {} : { subscribers: values.subscriber.split(',') }),
      ...(values.type === undefined ? {} : { eventTypes: values.type.split(',') }),
      ...(values.user === undefined ? {} : { user: values.user }),
      ...(values.lifetime === undefined ? {} : { lifetimeSeconds: Number(values.lifetime) }),
    });
    if (values.json) printJson(minted);
    else
      process.stdout.write(
        `${minted.link.id} for ${minted.link.tenant} (${minted.link.scope}) until ${minted.link.expiresAt}\n${minted.url}\n(the URL is shown this once)\n`,
      );
    return 0;
  }
  if (action === 'list') {
    const page = await api.listPortalLinks({
      state: values.all === true ? 'all' : 'active',
      ...(values.tenant === undefined ? {} : { tenant: values.tenant }),
      ...(values.limit === undefined ? {} : { limit: Number(values.limit) }),
      ...(values.cursor === undefined ? {} : { cursor: values.cursor }),
    });
    if (values.json) printJson(page);
    else process.stdout.write(linkTable(page));
    return 0;
  }
  const { link } = await api.revokePortalLink(id ?? '');
  if (values.json) printJson({ link });
  else process.stdout.write(`${link.id} is ${link.state}\n`);
  return 0;
}

function linkTable(page: PortalLinkList): string {
  if (page.items.length === 0) return 'no portal links\n';
  const rows = page.items.map((l) => [
    l.id,
    l.tenant,
    l.scope,
    l.state,
    l.expiresAt,
    l.subscribers?.join(',') ?? '*',
    l.eventTypes?.join(',') ?? '*',
    l.user ?? '-',
  ]);
  const next = page.nextCursor === null ? '' : `next page: --cursor ${page.nextCursor}\n`;
  return `${formatTable(['id', 'tenant', 'scope', 'state', 'expires', 'endpoints', 'types', 'user'], rows)}\n${next}`;
}

function bad(message: string): HookstreamError {
  return new HookstreamError('BAD_OPTION', message, false);
}
