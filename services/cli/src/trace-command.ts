import { parseArgs } from 'node:util';
import { loadStackConfig } from '@hookstream/stack';
import { findEventTraces, traceTimeline } from '@hookstream/telemetry';
import { formatTable } from '@hookstream/terminal';

export const TRACE_USAGE = `Usage: hookstream trace <event-id> [--json] [--jaeger <query url>]

Finds the event's trace(s) in Jaeger (spans tagged messaging.message.id = <event-id>) and prints
its intake, every delivery attempt, retry hop and replay as a timeline.
The query URL defaults to JAEGER_QUERY_URL, else the local stack's Jaeger.`;

export async function traceCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      jaeger: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const eventId = positionals[0];
  if (values.help) {
    process.stdout.write(`${TRACE_USAGE}\n`);
    return 0;
  }
  if (!eventId) {
    process.stderr.write(`${TRACE_USAGE}\n`);
    return 2;
  }
  const config = loadStackConfig();
  const queryUrl =
    values.jaeger ?? process.env.JAEGER_QUERY_URL ?? `http://${config.host}:${config.jaeger.queryPort}`;
  const traces = await findEventTraces(queryUrl, eventId);
  const timeline = traceTimeline(traces);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ eventId, traceIds: traces.map((t) => t.traceID), timeline }, null, 2)}\n`,
    );
    return traces.length > 0 ? 0 : 1;
  }
  if (traces.length === 0) {
    process.stderr.write(`no trace in ${queryUrl} has a span for event ${eventId}\n`);
    return 1;
  }
  const rows = timeline.map((e) => [
    `+${e.atMs.toFixed(1)}ms`,
    e.service,
    e.operation,
    e.subscriber ?? '',
    e.attempt === undefined ? '' : String(e.attempt),
    e.outcome ?? '',
    e.httpStatus === undefined ? '' : String(e.httpStatus),
    `${e.durationMs.toFixed(1)}ms`,
  ]);
  process.stdout.write(
    `${formatTable(['at', 'service', 'span', 'subscriber', 'attempt', 'outcome', 'status', 'took'], rows)}\n\n`,
  );
  for (const t of traces) process.stdout.write(`trace ${t.traceID}: ${queryUrl}/trace/${t.traceID}\n`);
  return 0;
}
