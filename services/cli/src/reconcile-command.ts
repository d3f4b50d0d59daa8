import { parseArgs } from 'node:util';
import { CATALOG_TOPIC, DEFAULT_EVENTS_TOPIC, EventTypeName, SubscriberName } from '@hookstream/contracts';
import type { ReconcileReport } from '@hookstream/dead-letter-tools';
import { LISTED_STATES, parseInstant, ReplayError, ReplayProgress } from '@hookstream/replay';
import { formatTable } from '@hookstream/terminal';
import { reconcileInThread } from './reconcile-thread.ts';
import { toolEnv } from './tool-env.ts';
import { reportToolError } from './tool-errors.ts';

/** A window longer than a year is a typo: no topic keeps that much. */
const MAX_WINDOW_MS = 366 * 86_400_000;
/** Progress goes to stderr only for windows this large; a short run says nothing there. */
const PROGRESS_FROM = 50_000;
const SAMPLE = 20;
export const RECONCILE_USAGE = `Usage: hookstream reconcile --from <time|age> [--to <time|age>] [--type <t>] [--subscriber <name>] [--topic <events topic>] [--json]

For each event of the window (by its Kafka timestamp, from inclusive, to exclusive) and each
required subscriber that owes it (its definition in ${CATALOG_TOPIC} has "required": true and takes
the event's type, and the event is not before its requiredFrom or its start position), what
became of it: delivered, pending (above the ledger), retrying (waiting in a retry tier),
dead-lettered, replayed (sent back from the DLQ, not settled yet) or lost (a range retention
deleted unread); filtered counts the window's events its types do not take. The evidence is the
group's committed offsets, the retry tiers (and their committed offsets), the DLQ and the replay
log; the events topic is read once, headers only, and nothing joins a subscriber's group.
Prints counts per subscriber and the first ${SAMPLE} event ids of each state but delivered and
filtered; progress goes to stderr on large windows.
  --from <time|age>    the window's start: RFC 3339 with offset, or an age like 30m, 2h, 7d (required)
  --to <time|age>      the window's end (default: now)
  --type <t>           only events of this type (repeatable)
  --subscriber <name>  only this required subscriber (repeatable; default: every required one)
  --topic <name>       the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --json               for scripts

Exit codes: 0 every obligation delivered or on its way, 1 an obligation is lost or dead-lettered
and not replayed (or Kafka failed), 2 bad option, 3 the window reaches past what retention still
holds (the boundary is named; 1 wins when both hold).`;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  type: { type: 'string', multiple: true },
  subscriber: { type: 'string', multiple: true },
  topic: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** `hookstream reconcile`. */
export async function reconcileCommand(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: OPTIONS });
  if (values.help) {
    process.stdout.write(`${RECONCILE_USAGE}\n`);
    return 0;
  }
  try {
    const nowMs = Date.now();
    if (values.from === undefined) throw new ReplayError('BAD_OPTION', '--from <time|age> is required');
    const fromMs = parseInstant('from', values.from, nowMs);
    const toMs = values.to === undefined ? nowMs : parseInstant('to', values.to, nowMs);
    if (toMs <= fromMs) throw new ReplayError('BAD_OPTION', '--to must be later than --from');
    if (toMs - fromMs > MAX_WINDOW_MS)
      throw new ReplayError('BAD_OPTION', '--from/--to: at most 366 days apart');
    for (const t of values.type ?? [])
      if (!EventTypeName.safeParse(t).success)
        throw new ReplayError('BAD_OPTION', `--type: '${t}' is not an event type name`);
    for (const s of values.subscriber ?? [])
      if (!SubscriberName.safeParse(s).success)
        throw new ReplayError('BAD_OPTION', `--subscriber: '${s}' is not a subscriber name`);
    const progress = new ReplayProgress(process.stderr, { verb: 'read' });
    const report = await reconcileInThread(
      {
        eventsTopic: values.topic ?? toolEnv().HOOKSTREAM_EVENTS_TOPIC,
        fromMs,
        toMs,
        types: values.type,
        subscribers: values.subscriber,
        sampleSize: SAMPLE,
      },
      {
        onProgress: (read, total) => {
          if (total >= PROGRESS_FROM) progress.update(read, total);
        },
        onUnbounded: () =>
          process.stderr.write(
            'reconcile: the failure evidence outgrew the bounded heap; reading again without the bound\n',
          ),
      },
    );
    process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : forPeople(report));
    return report.exitCode;
  } catch (err) {
    return reportToolError('reconcile', err);
  }
}

const COLUMNS = [
  'delivered',
  'pending',
  'retrying',
  'dead-lettered',
  'replayed',
  'lost',
  'filtered',
] as const;

/** The table per subscriber, then the listed ids of each state, then the boundary. */
export function forPeople(report: ReconcileReport): string {
  const out: string[] = [];
  out.push(
    `reconcile ${report.eventsTopic} from ${report.from} to ${report.to}: ${report.events} event(s)${report.events === report.read ? '' : ` of the types asked, of ${report.read} read`}`,
    '',
  );
  if (report.subscribers.length === 0) {
    out.push('no required subscriber in the catalog ("required": true)');
  } else {
    out.push(
      formatTable(
        ['subscriber', 'owed', ...COLUMNS, 'not owed'],
        report.subscribers.map((t) => [
          t.subscriber,
          String(t.owed),
          ...COLUMNS.map((c) => String(t.counts[c])),
          String(t.notOwed),
        ]),
      ),
    );
    for (const t of report.subscribers)
      for (const state of LISTED_STATES) {
        const listed = t.listed[state] ?? [];
        if (listed.length === 0) continue;
        const count = t.counts[state];
        out.push(
          '',
          `${t.subscriber}: ${state} ${count}${count > listed.length ? ` (the first ${listed.length})` : ''}`,
          formatTable(
            ['event id', 'record', 'detail'],
            listed.map((l) => [l.eventId, l.location, l.detail]),
          ),
        );
      }
  }
  if (report.boundary !== null) {
    const b = report.boundary;
    const kept =
      b.firstKeptMs === null
        ? 'holds no record any more'
        : `holds records from ${new Date(b.firstKeptMs).toISOString()} on`;
    out.push(
      '',
      `the window reaches past what retention still holds: ${b.topic} partition ${b.partition} ${kept}; what came before is not judged`,
    );
  }
  return `${out.join('\n')}\n`;
}
