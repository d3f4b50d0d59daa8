import { parseArgs } from 'node:util';
import { hookstreamBin } from '../hookstream-bin.ts';
import { runReconcileBench } from '../reconcile-bench.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_RECONCILE_USAGE = `Usage: hookstream bench reconcile [--events <n>] [--partitions <n>] [--json]

hookstream reconcile over a window of --events 1 KiB events (default 1000000) on a topic of
--partitions partitions (default 6): three required subscribers in the catalog, their ledgers
and failure topics set directly (no pusher runs; one with 10,000 records waiting in a retry tier,
one 1% behind with 1,000 dead letters). Reconcile runs as a child process; prints the time to
produce the window, reconcile's wall time and its peak RSS, and what it found. Needs the stack;
deletes what it created.`;

/** `hookstream bench reconcile`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchReconcileCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      events: { type: 'string', default: '1000000' },
      partitions: { type: 'string', default: '6' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_RECONCILE_USAGE}\n`);
    return 0;
  }
  const events = Number(values.events);
  const partitions = Number(values.partitions);
  if (!Number.isInteger(events) || events < 10_000 || events > 10_000_000)
    return bad('--events must be 10000..10000000');
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 64)
    return bad('--partitions must be 1..64');
  const result = await runReconcileBench({
    connection: benchConnection(),
    events,
    partitions,
    hookstreamBin: hookstreamBin(),
    report: (line) => process.stderr.write(`bench: ${line}\n`),
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `events         ${result.events} (${result.valueBytes} B values, ${result.partitions} partitions), produced in ${result.produceSeconds} s`,
    `reconcile      ${result.reconcileSeconds} s wall, peak RSS ${result.peakRssMiB} MiB, exit ${result.exitCode}`,
    ...Object.entries(result.counts).map(
      ([name, c]) =>
        `${name}: ${Object.entries(c)
          .filter(([, n]) => n > 0)
          .map(([state, n]) => `${state} ${n}`)
          .join(', ')} (indexed ${result.indexed[name] ?? 0} failure copies)`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function bad(message: string): number {
  process.stderr.write(`hookstream bench reconcile: ${message}\n${BENCH_RECONCILE_USAGE}\n`);
  return 2;
}
