import { parseArgs } from 'node:util';
import { dlqTopicName, SubscriberName } from '@hookstream/contracts';
import { type ReplaySummary, readDeadLetters, replayDeadLetters } from '@hookstream/dead-letter-tools';
import {
  type DeadLetter,
  parseRate,
  parseSelectionFlags,
  ReplayError,
  ReplayProgress,
  selectDeadLetters,
} from '@hookstream/replay';
import { AuditTrail, replayAuditRecord, SubscriberCatalog } from '@hookstream/subscribers';
import { startTracing } from '@hookstream/telemetry';
import { formatTable } from '@hookstream/terminal';
import { deadLetterTable } from './dead-letter-table.ts';
import { toolKafka } from './kafka-client.ts';
import { remoteApi } from './remote-api.ts';
import { remoteDlqList, remoteDlqReplay } from './remote-dlq.ts';
import { operatorName, toolActor } from './tool-env.ts';
import { formatAge, reportToolError } from './tool-errors.ts';

const FILTERS = `Selection (every given filter must hold; repeat --event-id, --reason, --status for several):
  --event-id <id>      this event
  --since <time|age>   dead-lettered at or after: RFC 3339 with offset, or an age like 30m, 2h, 7d
  --until <time|age>   dead-lettered before
  --reason <r>         terminal | exhausted | expired | poison | lost (a range retention deleted unread)
  --status <s>         the last HTTP status: 404, a class like 5xx, or none (no response)
  --limit <n>          at most n, oldest first`;

export const DLQ_USAGE = `Usage: hookstream dlq list   --subscriber <name> [selection] [--json]
       hookstream dlq replay --subscriber <name> [selection] [--dry-run] [--rate <n/s>] [--again] [--operator <who>] [--json]
       hookstream dlq list|replay --subscriber <name> … --api <url>  (HOOKSTREAM_API_TOKEN)

list: what is in the subscriber's dead-letter topic (hookstream.sub.<name>.dlq): event id, type,
reason, attempts, last status, age, and where (partition:offset).

replay: puts the selected dead letters back into the subscriber's retry tier 1 with a new
attempt budget and the same event id (webhook-id); never into the events topic, so no other
subscriber sees them. Each replayed DLQ record is written to the replay log
(hookstream.sub.<name>.replays), and a second identical replay sends nothing. One replay of a
subscriber at a time, across processes: while another holds the subscriber's replay lease,
replay stops at once naming it (REPLAY_LEASE_HELD), and a run another one took over stops
naming that one (REPLAY_FENCED). A dry run takes no lease.
  --dry-run      write nothing; list what would go
  --rate <n/s>   at most n records per second (default: as fast as Kafka acknowledges)
  --again        replay records the replay log says were already replayed
  --operator <who>  who replays, recorded on every replayed record (hookstream_replayed_by), in
                 the replay log and the attempt log (default: the OS user)

Over the management API (docs/api.md), with no Kafka settings on this machine: --api <url> (or
HOOKSTREAM_API_URL) and the bearer token in HOOKSTREAM_API_TOKEN run list and replay as that
token may (a tenant's: its own subscribers). replay starts a job there and follows it to its
end; the API takes the replay lease and records the token as operator (--rate and --operator
do not apply). list without --limit shows the oldest 1,000 and says so when there are more.

${FILTERS}

Exit codes: 0 done, 1 failed (Kafka, missing topics, another replay's lease), 2 bad option.`;

const OPTIONS = {
  subscriber: { type: 'string' },
  'event-id': { type: 'string', multiple: true },
  since: { type: 'string' },
  until: { type: 'string' },
  reason: { type: 'string', multiple: true },
  status: { type: 'string', multiple: true },
  limit: { type: 'string' },
  json: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  rate: { type: 'string' },
  again: { type: 'boolean', default: false },
  operator: { type: 'string' },
  api: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** `hookstream dlq list|replay`. */
export async function dlqCommand(argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === '--help' || action === '-h') return help(0);
  if (action !== 'list' && action !== 'replay') {
    if (action !== undefined) process.stderr.write(`hookstream dlq: unknown action '${action}'\n`);
    return help(2);
  }
  const { values } = parseArgs({ args: [...rest], options: OPTIONS });
  if (values.help) return help(0);
  const command = `dlq ${action}`;
  try {
    // Settings parsed once, first: a missing HOOKSTREAM_API_TOKEN stops the command before anything.
    const api = remoteApi(values.api, process.env);
    if (api !== null)
      for (const local of ['rate', 'operator'] as const)
        if (values[local] !== undefined)
          throw new ReplayError(
            'BAD_OPTION',
            `--${local} does not apply over --api (the API replays at Kafka's pace and records the token as operator)`,
          );
    if (values.subscriber === undefined)
      throw new ReplayError('BAD_OPTION', '--subscriber <name> is required');
    const name = SubscriberName.safeParse(values.subscriber);
    if (!name.success)
      throw new ReplayError('BAD_OPTION', `--subscriber: '${values.subscriber}' is not a subscriber name`);
    if (action === 'list') {
      for (const only of ['dry-run', 'again', 'rate', 'operator'] as const)
        if (values[only] !== undefined && values[only] !== false)
          throw new ReplayError('BAD_OPTION', `--${only} only applies to dlq replay`);
    }
    const selection = parseSelectionFlags(values, Date.now());
    const rate = values.rate === undefined ? undefined : parseRate(values.rate);
    if (api !== null)
      return action === 'list'
        ? await remoteDlqList(api, name.data, selection, values.json)
        : await remoteDlqReplay(api, name.data, {
            selection,
            json: values.json,
            dryRun: values['dry-run'],
            again: values.again,
          });
    if (action === 'list') return await list(name.data, selection, values.json);
    return await replay(name.data, {
      selection,
      rate,
      json: values.json,
      dryRun: values['dry-run'],
      again: values.again,
      operator: parseOperator(values.operator),
    });
  } catch (err) {
    return reportToolError(command, err);
  }
}

/** Who replays: printable text of at most 200 characters, by default the OS user. */
function parseOperator(given: string | undefined): string {
  const operator = given ?? operatorName();
  if (!/^[\x21-\x7e][\x20-\x7e]{0,199}$/.test(operator))
    throw new ReplayError(
      'BAD_OPTION',
      '--operator: 1 to 200 printable ASCII characters, not starting with a space',
    );
  return operator;
}

function help(code: number): number {
  (code === 0 ? process.stdout : process.stderr).write(`${DLQ_USAGE}\n`);
  return code;
}

async function list(
  subscriber: string,
  selection: ReturnType<typeof parseSelectionFlags>,
  json: boolean,
): Promise<number> {
  const letters = selectDeadLetters(
    await readDeadLetters(toolKafka('hookstream-dlq'), subscriber),
    selection,
  );
  const now = Date.now();
  if (json) {
    const out = {
      subscriber,
      topic: dlqTopicName(subscriber),
      count: letters.length,
      deadLetters: letters.map(toJson),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  if (letters.length === 0) {
    process.stdout.write(`no dead letters in ${dlqTopicName(subscriber)} match\n`);
    return 0;
  }
  const rows = letters.map((l) => ({
    eventId: l.eventId ?? '-',
    type: lostRange(l) ?? l.eventType ?? '-',
    tenant: l.tenant,
    reason: l.evidence?.reason ?? '?',
    attempts: l.evidence === null ? '?' : String(l.evidence.attempts),
    status: l.evidence?.status === undefined ? '-' : String(l.evidence.status),
    age: formatAge(now - l.deadLetteredAtMs),
    dlq: `${l.location.partition}:${l.location.offset}`,
    problem: l.problem,
  }));
  process.stdout.write(
    `${deadLetterTable(rows)}\n\n${letters.length} dead letter(s) in ${dlqTopicName(subscriber)}\n`,
  );
  return 0;
}

function toJson(l: DeadLetter) {
  const e = l.evidence;
  return {
    eventId: l.eventId,
    type: l.eventType,
    tenant: l.tenant,
    reason: e?.reason ?? null,
    attempts: e?.attempts ?? null,
    status: e?.status ?? null,
    outcome: e?.outcome ?? null,
    outcomeClass: e?.outcomeClass ?? null,
    excerpt: e?.excerpt ?? null,
    firstAttemptAt: e?.firstAttemptAt ?? null,
    lastAttemptAt: e?.lastAttemptAt ?? null,
    deadLetteredAt: new Date(l.deadLetteredAtMs).toISOString(),
    policyVersion: e?.policyVersion ?? null,
    replays: e?.replays ?? 0,
    dlq: l.location,
    origin: e?.origin ?? null,
    lost:
      e?.reason === 'lost'
        ? {
            topic: e.origin.topic,
            partition: e.origin.partition,
            lostFrom: e.lostFrom ?? null,
            lostTo: e.lostTo ?? null,
            lostCount: e.lostCount ?? null,
            lastCommitAt: e.lastCommitAt ?? null,
          }
        : null,
    problem: l.problem,
  };
}

/** A `lost` record's range, in the type column: it has no event (and so no type). */
function lostRange(l: DeadLetter): string | null {
  const e = l.evidence;
  if (e?.reason !== 'lost') return null;
  return `${e.lostCount ?? '?'} lost: ${e.origin.topic}:${e.origin.partition} ${e.lostFrom ?? '?'}..${e.lostTo ?? '?'}`;
}

async function replay(
  subscriber: string,
  options: {
    selection: ReturnType<typeof parseSelectionFlags>;
    rate: number | undefined;
    json: boolean;
    dryRun: boolean;
    again: boolean;
    operator: string;
  },
): Promise<number> {
  const tracing = options.dryRun ? undefined : await startTracing({ serviceName: 'hookstream-replay' });
  // A bar redrawn with \r when stderr is a terminal, plain lines in a log; stdout (--json) untouched.
  const progress = new ReplayProgress(process.stderr);
  let summary: ReplaySummary;
  try {
    summary = await replayDeadLetters(toolKafka('hookstream-replay'), {
      subscriber,
      selection: options.selection,
      again: options.again,
      operator: options.operator,
      tool: 'cli',
      dryRun: options.dryRun,
      ratePerSecond: options.rate,
      // The process's start, before loading: runs started together agree on it under any load.
      askedAtMs: performance.timeOrigin,
      onProgress: (done, total) => progress.update(done, total),
      onWarning: (m) => process.stderr.write(`warning: ${m}\n`),
    });
  } finally {
    await tracing?.shutdown().catch(() => undefined);
  }
  const code = await print(summary, options);
  // After the replay is durable and its summary out; a failure exits non-zero (AUDIT_NOT_WRITTEN).
  if (!summary.dryRun && summary.replayed.length > 0) await auditReplay(summary, options);
  return code;
}

/** Writes the replay's audit record; its tenant only when the catalog may be read (a replay operator may not). */
async function auditReplay(
  summary: ReplaySummary,
  options: { again: boolean; operator: string },
): Promise<void> {
  const kafka = toolKafka('hookstream-audit');
  const tenant = await new SubscriberCatalog(kafka)
    .read()
    .then((s) => s.subscribers.get(summary.subscriber)?.definition.tenant)
    .catch(() => undefined);
  await new AuditTrail(kafka).write([
    replayAuditRecord(summary, {
      actor: toolActor(),
      operator: options.operator,
      again: options.again,
      tenant,
      now: new Date(),
    }),
  ]);
}

async function print(summary: ReplaySummary, options: { json: boolean; dryRun: boolean }): Promise<number> {
  if (options.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return 0;
  }
  if (summary.replayed.length > 0) {
    const rows = summary.replayed.map((r) => [r.eventId ?? '-', r.dlq, r.detail]);
    process.stdout.write(
      `${formatTable(['event id', 'dlq record', options.dryRun ? 'would go to' : 'replayed to'], rows)}\n\n`,
    );
  }
  for (const u of summary.unreplayable)
    process.stdout.write(`cannot replay ${u.dlq} (${u.eventId ?? 'no event id'}): ${u.detail}\n`);
  const verb = options.dryRun ? 'would replay' : 'replayed';
  const skipped = summary.alreadyReplayed.length;
  process.stdout.write(
    `${verb} ${summary.replayed.length} to ${summary.topic}; skipped ${skipped} already replayed${
      skipped > 0 ? ' (--again to force)' : ''
    }; ${summary.unreplayable.length} unreplayable; ${summary.selected} selected${
      options.dryRun ? ' (dry run: nothing written)' : ` (replay ${summary.replayId})`
    }\n`,
  );
  return 0;
}
