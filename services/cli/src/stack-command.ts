import { parseArgs } from 'node:util';
import { type ComponentReport, stackDown, stackStatus, stackUp } from '@hookstream/stack';
import { formatTable } from './table.ts';

export const STACK_USAGE = `Usage: hookstream stack <up|down|status> [--json]

  up       install (first run) and start Kafka, the schema registry and Jaeger; waits until ready
  down     stop the processes \`stack up\` started
  status   what runs where

Environment: KAFKA_PORT, REGISTRY_PORT, JAEGER_OTLP_HTTP_PORT, JAEGER_QUERY_PORT, HOOKSTREAM_JAEGER=auto|on|off,
HOOKSTREAM_STATE_DIR (pids, logs, data), HOOKSTREAM_CACHE_DIR (downloads and builds).`;

export async function stackCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const action = positionals[0];
  if (values.help) {
    process.stdout.write(`${STACK_USAGE}\n`);
    return 0;
  }
  let reports: ComponentReport[];
  switch (action) {
    case 'up':
      reports = await stackUp();
      break;
    case 'down':
      reports = await stackDown();
      break;
    case 'status':
      reports = await stackStatus();
      break;
    default:
      process.stderr.write(`${STACK_USAGE}\n`);
      return 2;
  }
  process.stdout.write(`${values.json ? JSON.stringify(reports, null, 2) : renderReports(reports)}\n`);
  return action === 'status' && reports.some((r) => r.state !== 'running' && r.state !== 'skipped') ? 3 : 0;
}

export function renderReports(reports: readonly ComponentReport[]): string {
  return formatTable(
    ['component', 'state', 'pid', 'endpoints', 'log'],
    reports.map((r) => [
      r.name,
      r.state,
      r.pid === null ? '-' : String(r.pid),
      Object.entries(r.endpoints)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
      r.logFile,
    ]),
  );
}
