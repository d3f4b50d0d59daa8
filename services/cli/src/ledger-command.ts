import { parseArgs } from 'node:util';
import {
  ATTEMPT_LOG_TOPIC,
  CATALOG_TOPIC,
  DEFAULT_EVENTS_TOPIC,
  EventId,
  formatLocation,
  SubscriberName,
} from '@hookstream/contracts';
import { queryLedger } from '@hookstream/dead-letter-tools';
import { type LedgerLine, parseInstant, ReplayError } from '@hookstream/replay';
import { formatTable } from '@hookstream/terminal';
import { toolKafka } from './kafka-client.ts';
import { toolEnv } from './tool-env.ts';
import { reportToolError } from './tool-errors.ts';

export const LEDGER_USAGE = `Usage: hookstream ledger <event-id> [--subscriber <name>] [--topic <events topic>] [--since <time|age>] [--json]

Where the event is for every subscriber (consumer groups hookstream.sub.<name>): delivered,
waiting in a retry tier, dead-lettered, filtered out, or not reached yet (its offset is at or
above the group's committed offset). A step of an event 'subscribers rewind' sent again says
who rewound, and when.

Reads the partition of ${ATTEMPT_LOG_TOPIC} the event id hashes to, and scans the events topic for
the event's ce_id only when no attempt names its location; then compares with each group's
committed offsets. A group past the event with no attempt recorded is filtered when its definition
in ${CATALOG_TOPIC} does not take the event's type (ce_type). Nothing joins or moves a
subscriber's group.
  --subscriber <name>  only this subscriber
  --topic <name>       the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --since <time|age>   read the attempt log and events topic from then on (faster on big topics)
  --json               for scripts

Exit codes: 0 found, 1 the event is nowhere to be found (or Kafka failed), 2 bad option.`;

/** `hookstream ledger <event-id>`. */
export async function ledgerCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      subscriber: { type: 'string' },
      topic: { type: 'string' },
      since: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${LEDGER_USAGE}\n`);
    return 0;
  }
  try {
    const [eventId, ...extra] = positionals;
    if (eventId === undefined) throw new ReplayError('BAD_OPTION', '<event-id> is required');
    if (extra.length > 0)
      throw new ReplayError('BAD_OPTION', `one <event-id> only, got also '${extra.join(' ')}'`);
    if (!EventId.safeParse(eventId).success)
      throw new ReplayError('BAD_OPTION', `<event-id>: '${eventId}' is not an event id`);
    if (values.subscriber !== undefined && !SubscriberName.safeParse(values.subscriber).success)
      throw new ReplayError('BAD_OPTION', `--subscriber: '${values.subscriber}' is not a subscriber name`);
    const sinceMs = values.since === undefined ? undefined : parseInstant('since', values.since, Date.now());
    const answer = await queryLedger(toolKafka('hookstream-ledger'), {
      eventId,
      eventsTopic: values.topic ?? toolEnv().HOOKSTREAM_EVENTS_TOPIC,
      subscriber: values.subscriber,
      sinceMs,
    });
    const found = answer.origin !== null || answer.subscribers.some((s) => s.ledger.state !== 'unknown');
    if (values.json) {
      process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      return found ? 0 : 1;
    }
    if (!found) {
      process.stderr.write(
        `hookstream ledger: event ${eventId} is neither in ${ATTEMPT_LOG_TOPIC} nor in the events topic\n`,
      );
      return 1;
    }
    const where =
      answer.origin === null
        ? 'location unknown'
        : `${formatLocation(answer.origin)} (found in the ${answer.foundIn === 'attempt-log' ? 'attempt log' : 'events topic'})`;
    process.stdout.write(`event ${eventId} at ${where}\n`);
    process.stdout.write(`tenant ${answer.tenant ?? 'none'}\n\n`);
    if (answer.subscribers.length === 0) {
      process.stdout.write('no subscriber groups (hookstream.sub.*) exist\n');
      return 0;
    }
    const rows = answer.subscribers.map((l) => [l.subscriber, l.ledger.state, describe(l, Date.now())]);
    process.stdout.write(`${formatTable(['subscriber', 'state', 'detail'], rows)}\n`);
    if (answer.otherGroups > 0)
      process.stdout.write(
        `\n(${answer.otherGroups} other subscriber group(s) have no ledger on ${answer.origin?.topic ?? 'this topic'}; --subscriber <name> asks one anyway)\n`,
      );
    return 0;
  } catch (err) {
    return reportToolError('ledger', err);
  }
}

/** One line of detail per state, for people. */
export function describe(line: LedgerLine, nowMs: number): string {
  const l = line.ledger;
  const batch = 'batchId' in l && l.batchId !== undefined ? ` in batch ${l.batchId}` : '';
  const status = `${'status' in l && l.status !== undefined ? `, status ${l.status}` : ''}${batch}`;
  const rewind = 'rewind' in l && l.rewind !== undefined ? l.rewind : undefined;
  // Why an event delivered before shows a step again: an operator's rewind sent it.
  const again = rewind === undefined ? '' : ` (sent again by a rewind by ${rewind.by} at ${rewind.at})`;
  switch (l.state) {
    case 'delivered':
      return `at ${l.at}, attempt ${l.attempt}${status}${again}`;
    case 'retrying': {
      const due =
        l.dueAt === null
          ? 'due time unknown'
          : `due ${l.dueAt}${Date.parse(l.dueAt) < nowMs ? ' (overdue: is the pusher running?)' : ''}`;
      return `in retry tier ${l.tier}, ${due}, after attempt ${l.attempt}${l.batchId === undefined ? '' : ` in batch ${l.batchId}`}${l.replayed ? ` (replayed${l.replayedBy ? ` by ${l.replayedBy}` : ''})` : ''}${again}`;
    }
    case 'dead-lettered':
      return `reason ${l.reason ?? 'unknown'}, after attempt ${l.attempt}${status}, at ${l.at}${again}`;
    case 'filtered':
      if (l.at !== null)
        return `filtered out at ${l.at}${l.filter === undefined ? '' : ` by its filter's ${l.filter}`}${rewind === undefined ? '' : ` (read again after a rewind by ${rewind.by} at ${rewind.at})`}`;
      return l.tenant !== undefined
        ? `by tenant: its tenant does not take the event's (${l.tenant ?? 'none'}) (offset ${line.origin?.offset} < committed ${l.committed ?? '?'}; no attempt log entry)`
        : `its eventTypes do not take ${l.eventType ?? 'the event type'} (offset ${line.origin?.offset} < committed ${l.committed ?? '?'}; no attempt log entry)`;
    case 'not-reached':
      return l.committed === null
        ? 'no committed offset on its partition yet'
        : `offset ${line.origin?.offset} ≥ committed ${l.committed}`;
    case 'passed-without-record':
      return `offset ${line.origin?.offset} < committed ${l.committed}, but no attempt recorded (before the group's start position, or before the attempt log)`;
    case 'unknown':
      return 'no attempt recorded and the event was not found in the events topic';
  }
}
