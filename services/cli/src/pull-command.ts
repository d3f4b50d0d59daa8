import { parseArgs } from 'node:util';
import { HookstreamError } from '@hookstream/contracts';
import { formatTable } from '@hookstream/terminal';
import { z } from 'zod';
import { remoteApi } from './remote-api.ts';
import { reportToolError } from './tool-errors.ts';

export const PULL_USAGE = `Usage: hookstream pull <subscriber> --api <url> [--max <n>] [--wait <s>] [--lease <s>] [--ack] [--json]

Leases a pull subscriber's events over the management API (docs/api.md, "Pull") and prints them:
a table (event id, type, attempt, tenant), or with --json the lease as the API answers it (each
event as push would send it). --ack acknowledges them once printed, so the subscriber's ledger
moves; without it the lease runs out after --lease seconds and they can be leased again.

Needs --api <url> (or HOOKSTREAM_API_URL) and HOOKSTREAM_API_TOKEN (a tenant's token pulls only
its own subscribers). No Kafka settings are read.

Options:
  --max <n>     events at most (1–1000, default 100)
  --wait <s>    seconds to wait for a first event when none waits (0–30, default 5)
  --lease <s>   seconds the events are held for this caller (5–600, default 30)
  --ack         acknowledge what was printed
  --json        the lease as JSON (and {"acked": n} after it with --ack)`;

/** The command's settings, parsed once: a bad one names its flag. */
const PullConfig = z.object({
  max: z.coerce.number().int().min(1).max(1000),
  wait: z.coerce.number().int().min(0).max(30),
  lease: z.coerce.number().int().min(5).max(600),
});

/** `hookstream pull`: one lease of a pull subscriber's events, printed, acknowledged with --ack. */
export async function pullCommand(args: readonly string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        api: { type: 'string' },
        max: { type: 'string', default: '100' },
        wait: { type: 'string', default: '5' },
        lease: { type: 'string', default: '30' },
        ack: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      process.stdout.write(`${PULL_USAGE}\n`);
      return 0;
    }
    const [name, ...extra] = positionals;
    if (name === undefined || extra.length > 0) {
      process.stderr.write(`${PULL_USAGE}\n`);
      return 2;
    }
    const parsed = PullConfig.safeParse(values);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new HookstreamError(
        'BAD_CONFIG',
        `--${String(issue?.path[0])}: ${issue?.message ?? 'bad value'}`,
        false,
      );
    }
    const client = remoteApi(values.api, process.env);
    if (client === null)
      throw new HookstreamError(
        'BAD_CONFIG',
        'pull runs against the management API: --api <url> or HOOKSTREAM_API_URL',
        false,
      );
    const answer = await client.leaseEvents(name, parsed.data);
    if (values.json) process.stdout.write(`${JSON.stringify(answer)}\n`);
    else if (answer.lease === null)
      process.stdout.write(`no events for ${name} within ${parsed.data.wait} s\n`);
    else
      process.stdout.write(
        `${formatTable(
          ['event', 'type', 'attempt', 'tenant'],
          answer.events.map((e) => [
            String(e.event_id),
            String(e.type),
            String(e.attempt),
            e.tenant === undefined ? '-' : String(e.tenant),
          ]),
        )}\nlease ${answer.lease.id} until ${answer.lease.expiresAt}; cursors ${answer.cursors.join(', ')}\n`,
      );
    if (values.ack && answer.lease !== null) {
      const { acked } = await client.ackEvents(name, { lease: answer.lease.id, cursors: answer.cursors });
      process.stdout.write(values.json ? `${JSON.stringify({ acked })}\n` : `acknowledged ${acked}\n`);
    }
    return 0;
  } catch (err) {
    return reportToolError('pull', err);
  }
}
