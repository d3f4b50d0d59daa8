import { parseArgs } from 'node:util';
import {
  AUDIT_TOPIC,
  type AuditActor,
  type AuditRecord,
  SubscriberName,
  TenantId,
} from '@hookstream/contracts';
import { parseInstant, ReplayError } from '@hookstream/replay';
import { readAuditTrail } from '@hookstream/subscribers';
import { formatTable } from '@hookstream/terminal';
import { toolKafka } from './kafka-client.ts';
import { reportToolError } from './tool-errors.ts';

export const AUDIT_USAGE = `Usage: hookstream audit [--subscriber <name>] [--tenant <tenant>] [--since <time|age>] [--json]

The audit trail (topic ${AUDIT_TOPIC}): every change to a subscriber, oldest first: when, who
(user: the OS user at the CLI; token: a console token or an API token; system: a pusher's
auto-disable), what (subscriber.created, .updated, .deleted, .purged, .paused, .resumed,
.disabled, .secret_rotated, .header_sealed, .credential_sealed, .resealed;
dead_letters.replayed; and one read, subscriber.secret_read: a managed secret shown by the API
or by secret show), and digests of the catalog record before and after (sha256 of its canonical
JSON; one change's after is the next one's before; a read's before and after are the same).
Reads the topic up to its end when the command starts.
  --subscriber <name>    only this subscriber's changes
  --tenant <tenant>      only the changes to this tenant's subscribers
  --since <time|age>     only changes at or after: RFC 3339 with offset, or an age like 30m, 2h, 7d
  --json                 a JSON array of the records, for scripts

Exit codes: 0 done (also when nothing matches); 1 failed (Kafka); 2 bad option.`;

const OPTIONS = {
  subscriber: { type: 'string' },
  tenant: { type: 'string' },
  since: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** `hookstream audit`: reads the audit trail; the selection is @hookstream/subscribers'. */
export async function auditCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
  if (values.help) {
    process.stdout.write(`${AUDIT_USAGE}\n`);
    return 0;
  }
  try {
    if (positionals.length > 0)
      throw new ReplayError('BAD_OPTION', `audit takes no argument, got '${positionals.join(' ')}'`);
    if (values.subscriber !== undefined && !SubscriberName.safeParse(values.subscriber).success)
      throw new ReplayError('BAD_OPTION', `--subscriber: '${values.subscriber}' is not a subscriber name`);
    if (values.tenant !== undefined && !TenantId.safeParse(values.tenant).success)
      throw new ReplayError('BAD_OPTION', `--tenant: '${values.tenant}' is not a tenant`);
    const sinceMs = values.since === undefined ? undefined : parseInstant('since', values.since, Date.now());
    const { records, problems } = await readAuditTrail(toolKafka('hookstream-audit'), {
      subscriber: values.subscriber,
      tenant: values.tenant,
      sinceMs,
    });
    for (const p of problems)
      process.stderr.write(`skipped the record at ${p.offset ?? '?'} of ${AUDIT_TOPIC}: ${p.error}\n`);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
      return 0;
    }
    if (records.length === 0) {
      process.stdout.write(`no changes in ${AUDIT_TOPIC} match\n`);
      return 0;
    }
    process.stdout.write(
      `${formatTable(
        ['at', 'subscriber', 'tenant', 'action', 'by', 'before', 'after', 'detail'],
        records.map(row),
      )}\n\n${records.length} change(s)\n`,
    );
    return 0;
  } catch (err) {
    return reportToolError('audit', err);
  }
}

function row(r: AuditRecord): string[] {
  return [
    r.at,
    r.subscriber,
    r.tenant ?? '-',
    r.action,
    formatActor(r.actor),
    shortDigest(r.before),
    shortDigest(r.after),
    r.detail === undefined ? '' : JSON.stringify(r.detail).slice(0, 120),
  ];
}

/** `user alice`, `token console-token-1@acme`, `system pusher@host:42`, `portal pl_…@acme (bob)`. */
function formatActor(actor: AuditActor): string {
  switch (actor.kind) {
    case 'user':
      return `user ${actor.user}`;
    case 'token':
      return `token ${actor.tokenId}${actor.tenant === undefined ? '' : `@${actor.tenant}`}`;
    case 'system':
      return `system ${actor.component}${actor.instance === undefined ? '' : `@${actor.instance}`}`;
    case 'portal':
      return `portal ${actor.linkId}@${actor.tenant}${actor.user === undefined ? '' : ` (${actor.user})`}`;
  }
}

/** The digest's first 12 hex digits: enough to follow a chain by eye (--json has them whole). */
function shortDigest(digest: string | null): string {
  return digest === null ? '-' : digest.slice('sha256:'.length, 'sha256:'.length + 12);
}
