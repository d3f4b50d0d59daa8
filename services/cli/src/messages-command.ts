import { parseArgs } from 'node:util';
import type {
  ApiClient,
  MessageDetail,
  MessageList,
  MessageOptions,
  MessagePayload,
} from '@hookstream/api-client';
import { HookstreamError } from '@hookstream/contracts';
import { formatTable } from '@hookstream/terminal';
import { requiredRemoteApi } from './remote-api.ts';
import { printJson } from './subscribers-output.ts';
import { reportToolError } from './tool-errors.ts';

export const MESSAGES_USAGE = `Usage: hookstream messages list [--tenant <t>] [--subscriber <name,…>] [--type <type,…>] [--state <state>] [--event-id <id>] [--since <time>] [--until <time>] [--limit <n>] [--cursor <c>] [--json]
       hookstream messages show <event-id> [--tenant <t>] [--json]
       hookstream messages resend <event-id> --subscriber <name> [--json]
       hookstream messages send-example --subscriber <name> --type <type> [--json]
       hookstream messages erase --tenant <t> [--json]

A tenant's messages as the customer portal shows them, and its actions, over the management API
(docs/api.md, "Messages"): --api <url> (or HOOKSTREAM_API_URL) and HOOKSTREAM_API_TOKEN. No
Kafka settings are read.

list          the newest messages first: event, type, state, first seen, each endpoint's last step
              (--state delivered|pending|failed|filtered; --limit 1–100, default 50; --cursor
              the next page's, as list printed it). The operator names --tenant; a tenant's token
              reads its own.
show          one message with every attempt: time, endpoint, step, status, latency, excerpt;
              then its data as the API's --message-payloads allows (size and hash by default)
resend        sends the event again to one endpoint, with the same id and a fresh attempt budget
send-example  sends an example event of the type, made from its schema, to that endpoint only
erase         erases the tenant's messages from every API instance's portal index (a data
              deletion request; an operator token); Kafka's topics keep theirs until retention

Options:
  --json        the API's answer as JSON, for scripts`;

const OPTIONS = {
  api: { type: 'string' },
  tenant: { type: 'string' },
  subscriber: { type: 'string' },
  type: { type: 'string' },
  state: { type: 'string' },
  'event-id': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

/** Which options each action takes (besides --api, --json and --help). */
const TAKES: Readonly<Record<string, readonly string[]>> = {
  list: ['tenant', 'subscriber', 'type', 'state', 'event-id', 'since', 'until', 'limit', 'cursor'],
  show: ['tenant', 'subscriber'],
  resend: ['subscriber'],
  'send-example': ['subscriber', 'type'],
  erase: ['tenant'],
};

/** `hookstream messages`: the portal's messages and actions, over the management API. */
export async function messagesCommand(args: readonly string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: [...args], allowPositionals: true, options: OPTIONS });
    const [action, ...targets] = positionals;
    if (values.help) {
      process.stdout.write(`${MESSAGES_USAGE}\n`);
      return 0;
    }
    const takes = action === undefined ? undefined : TAKES[action];
    if (takes === undefined) {
      process.stderr.write(`${MESSAGES_USAGE}\n`);
      return 2;
    }
    for (const [option, value] of Object.entries(values))
      if (value !== undefined && !['api', 'json', 'help', ...takes].includes(option))
        throw bad(`--${option} does not apply to messages ${action}`);
    const api = requiredRemoteApi('messages', values.api, process.env);
    return await run(api, action as keyof typeof TAKES, targets, values);
  } catch (err) {
    return reportToolError('messages', err);
  }
}

async function run(
  api: ApiClient,
  action: string,
  targets: readonly string[],
  values: Values,
): Promise<number> {
  const target = (what: string) => {
    const [one, ...rest] = targets;
    if (one === undefined || rest.length > 0) throw bad(`messages ${action} takes one ${what}`);
    return one;
  };
  const needed = (name: 'subscriber' | 'type' | 'tenant') => {
    const value = values[name];
    if (value === undefined) throw bad(`messages ${action} needs --${name}`);
    return value;
  };
  switch (action) {
    case 'list': {
      if (targets.length > 0) throw bad('messages list takes no positional argument');
      const page = await api.listMessages(listOptions(values));
      if (values.json) printJson(page);
      else process.stdout.write(messageTable(page));
      return 0;
    }
    case 'show': {
      const id = target('<event-id>');
      const options = {
        ...(values.tenant === undefined ? {} : { tenant: values.tenant }),
        ...(values.subscriber === undefined ? {} : { subscriber: values.subscriber.split(',') }),
      };
      const detail = await api.getMessage(id, options);
      // The data is an aid: past the topic's retention the attempts still show.
      const payload = await api.getMessagePayload(id, options).catch((err: unknown) => ({
        mode: 'unavailable' as const,
        why: err instanceof Error ? err.message : String(err),
      }));
      if (values.json) printJson({ ...detail, payload });
      else process.stdout.write(`${attemptTable(detail)}${payloadLine(payload)}`);
      return 0;
    }
    case 'resend': {
      const answer = await api.resendMessage(target('<event-id>'), needed('subscriber'));
      if (values.json) printJson(answer);
      else process.stdout.write(`resent ${answer.eventId} to ${answer.subscriber} (${answer.sentTo})\n`);
      return 0;
    }
    case 'erase': {
      if (targets.length > 0) throw bad('messages erase takes no positional argument');
      const erasure = await api.eraseTenantMessages(needed('tenant'));
      if (values.json) printJson(erasure);
      else process.stdout.write(`erased the messages of ${erasure.tenant} begun by ${erasure.at}\n`);
      return 0;
    }
    default: {
      if (targets.length > 0) throw bad('messages send-example takes no positional argument');
      const answer = await api.sendExample(needed('subscriber'), needed('type'));
      if (values.json) printJson(answer);
      else
        process.stdout.write(
          `sent an example ${answer.type} to ${answer.subscriber}: event ${answer.eventId} (${answer.sentTo})\n`,
        );
      return 0;
    }
  }
}

/** The list's query from the flags: lists comma-separated; the client bounds every value before sending. */
function listOptions(values: Values): MessageOptions {
  const options: Record<string, unknown> = {
    tenant: values.tenant,
    subscriber: values.subscriber?.split(','),
    type: values.type?.split(','),
    state: values.state,
    eventId: values['event-id'],
    since: values.since,
    until: values.until,
    limit: values.limit === undefined ? undefined : Number(values.limit),
    cursor: values.cursor,
  };
  // Checked against the API's query schema by the client: a bad --state or --limit is refused there.
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as MessageOptions;
}

function messageTable(page: MessageList): string {
  if (page.items.length === 0) return 'no messages match\n';
  const rows = page.items.map((m) => [
    m.eventId,
    m.type ?? '-',
    m.state,
    m.firstAt,
    m.endpoints
      .map((e) => `${e.subscriber}:${e.step}${e.lastStatus === undefined ? '' : `(${e.lastStatus})`}`)
      .join(' '),
  ]);
  const next = page.nextCursor === null ? '' : `next page: --cursor ${page.nextCursor}\n`;
  return `${formatTable(['event', 'type', 'state', 'first', 'endpoints'], rows)}\n${next}`;
}

function attemptTable(m: MessageDetail): string {
  const rows = m.attempts.map((a) => [
    a.at,
    a.subscriber,
    String(a.attempt),
    a.step,
    a.status === undefined ? '-' : String(a.status),
    a.durationMs === undefined ? '-' : `${Math.round(a.durationMs)} ms`,
    (a.excerpt ?? a.outcome ?? '').replace(/\s+/g, ' ').slice(0, 80),
  ]);
  return `${m.eventId}  ${m.type ?? '-'}  ${m.state}  (tenant ${m.tenant})\n${formatTable(
    ['at', 'endpoint', 'attempt', 'step', 'status', 'latency', 'answer'],
    rows,
  )}\n`;
}

function payloadLine(p: MessagePayload | { readonly mode: 'unavailable'; readonly why: string }): string {
  if (p.mode === 'none') return '';
  if (p.mode === 'unavailable') return `data: not shown (${p.why})\n`;
  const digest = `data: ${p.bytes} bytes, sha256 ${p.sha256}\n`;
  return p.mode === 'digest' ? digest : `${digest}${JSON.stringify(p.data, null, 2)}\n`;
}

function bad(message: string): HookstreamError {
  return new HookstreamError('BAD_OPTION', message, false);
}
