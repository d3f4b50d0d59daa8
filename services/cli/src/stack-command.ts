import { parseArgs } from 'node:util';
import {
  type ComponentReport,
  describeHolders,
  joinStack,
  releaseAndStop,
  type StackHolder,
  stackStatus,
  waitForComponent,
} from '@hookstream/stack';
import { formatTable } from '@hookstream/terminal';

export const STACK_USAGE = `Usage: hookstream stack <up|down|status> [--json] [--force]

  up       install (first run) and start Kafka, the schema registry, Jaeger and Redis, or join the
           stack another checkout started; waits until ready (Jaeger too, however long its first
           build takes) and holds the stack until \`stack down\`
  down     give up this checkout's hold and stop the stack, unless another holder still uses it
           (--force stops it anyway)
  status   what runs where, and who holds the stack; exits 3 if a component is not running

One stack per machine: its pids, holders, logs and data live in HOOKSTREAM_STATE_DIR (default
~/.local/state/hookstream). Environment: KAFKA_PORT, REGISTRY_PORT, JAEGER_OTLP_HTTP_PORT,
JAEGER_QUERY_PORT, REDIS_PORT, HOOKSTREAM_JAEGER=auto|on|off, HOOKSTREAM_REDIS=auto|on|off,
HOOKSTREAM_STACK_MISMATCH=refuse|use, HOOKSTREAM_CACHE_DIR (downloads and builds).`;

export async function stackCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const action = positionals[0];
  if (values.help) {
    process.stdout.write(`${STACK_USAGE}\n`);
    return 0;
  }
  const print = (json: unknown, text: string) =>
    process.stdout.write(`${values.json ? JSON.stringify(json, null, 2) : text}\n`);
  switch (action) {
    case 'up': {
      const session = await joinStack({ command: 'stack up', untilDown: true });
      // A terminal's `stack up` means the whole stack: wait for the background ones too.
      const reports = await Promise.all(
        session.reports.map((r) => (r.state === 'starting' ? awaitReady(r) : r)),
      );
      print(reports, renderReports(reports));
      return 0;
    }
    case 'down': {
      const result = await releaseAndStop({ force: values.force });
      if (result.stopped.length === 0 && result.heldBy.length > 0) {
        print(
          result,
          `kept running: the stack is still held by\n${describeHolders(result.heldBy)}\n` +
            '(`stack down --force` stops it anyway)',
        );
      } else print(result, `stopped: ${result.stopped.join(', ') || 'nothing was running'}`);
      return 0;
    }
    case 'status': {
      const status = await stackStatus();
      print(status, `${renderReports(status.components)}\n\n${renderHolders(status.holders)}`);
      return status.components.some((r) => r.state !== 'running' && r.state !== 'skipped') ? 3 : 0;
    }
    default:
      process.stderr.write(`${STACK_USAGE}\n`);
      return 2;
  }
}

/** A background component that fails (a build error) is reported, as any optional component is. */
async function awaitReady(report: ComponentReport): Promise<ComponentReport> {
  try {
    return await waitForComponent(report.name);
  } catch (err) {
    const note = (err as Error).message;
    process.stderr.write(`[stack] ${report.name.padEnd(8)} WARNING: ${note}\n`);
    return { ...report, state: 'failed', note };
  }
}

export function renderReports(reports: readonly ComponentReport[]): string {
  return formatTable(
    ['component', 'state', 'version', 'pid', 'endpoints', 'log'],
    reports.map((r) => [
      r.name,
      r.note && r.state !== 'running' ? `${r.state}: ${r.note}` : r.state,
      r.version ?? '-',
      r.pid === null ? '-' : String(r.pid),
      Object.entries(r.endpoints)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
      r.logFile,
    ]),
  );
}

function renderHolders(holders: readonly StackHolder[]): string {
  if (holders.length === 0) return 'holders: none (`stack down` stops the stack)';
  return formatTable(
    ['holder', 'checkout', 'pid', 'since'],
    holders.map((h) => [h.command, h.checkout, h.pid === null ? 'until stack down' : String(h.pid), h.since]),
  );
}
