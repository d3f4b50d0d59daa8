import { parseArgs } from 'node:util';
import { formatIngressBench } from '../format.ts';
import { runIngressBench } from '../ingress-bench.ts';
import { benchApiCommand } from './bench-api.ts';
import { benchConnection } from './bench-connection.ts';
import { benchCpuBaselineCommand } from './bench-cpu-baseline.ts';
import { benchE2eCommand } from './bench-e2e.ts';
import { benchFleetCommand } from './bench-fleet.ts';
import { benchHandoffCommand } from './bench-handoff.ts';
import { benchLimiterCommand } from './bench-limiter.ts';
import { benchLimiterWaitCommand } from './bench-limiter-wait.ts';
import { benchOutageCommand } from './bench-outage.ts';
import { benchPortalCommand } from './bench-portal.ts';
import { benchProfileCommand } from './bench-profile.ts';
import { benchPullCommand } from './bench-pull.ts';
import { benchPushCommand } from './bench-push.ts';
import { benchReconcileCommand } from './bench-reconcile.ts';
import { benchReportCommand } from './bench-report-command.ts';
import { benchRetryCommand } from './bench-retry.ts';
import { benchSpansCommand } from './bench-spans.ts';

export const BENCH_USAGE = `Usage: hookstream bench [--quick] [--events <n>] [--json]   (the full report; --help for more)
       hookstream bench ingress [--events <n>] [--json]
       hookstream bench push --help
       hookstream bench cpu-baseline --help
       hookstream bench e2e --help
       hookstream bench retry --help
       hookstream bench limiter --help
       hookstream bench limiter-wait --help
       hookstream bench fleet --help
       hookstream bench outage --help
       hookstream bench reconcile --help
       hookstream bench api --help
       hookstream bench pull --help
       hookstream bench profile --help
       hookstream bench portal --help
       hookstream bench handoff --help
       hookstream bench spans --help

Measures accepted events/s and p50/p99 latency of ~1 KiB events through the HTTP ingress (one
event per request at concurrency 8, 32, 128; batches of 50 at 4 and 16), next to a raw kafkajs
sendBatch loop on the same broker, and prints the ratio. --events: events per run (default
20000; every run also stops after 20 s). Uses the local stack (KAFKA_PORT, REGISTRY_PORT) and a
topic of its own that it deletes afterwards.`;

export async function benchCommand(argv: readonly string[]): Promise<number> {
  // Each benchmark parses its own options.
  if (argv[0] === 'push') return benchPushCommand(argv.slice(1));
  if (argv[0] === 'cpu-baseline') return benchCpuBaselineCommand(argv.slice(1));
  if (argv[0] === 'retry') return benchRetryCommand(argv.slice(1));
  if (argv[0] === 'e2e') return benchE2eCommand(argv.slice(1));
  if (argv[0] === 'limiter') return benchLimiterCommand(argv.slice(1));
  if (argv[0] === 'limiter-wait') return benchLimiterWaitCommand(argv.slice(1));
  if (argv[0] === 'fleet') return benchFleetCommand(argv.slice(1));
  if (argv[0] === 'outage') return benchOutageCommand(argv.slice(1));
  if (argv[0] === 'reconcile') return benchReconcileCommand(argv.slice(1));
  if (argv[0] === 'api') return benchApiCommand(argv.slice(1));
  if (argv[0] === 'pull') return benchPullCommand(argv.slice(1));
  if (argv[0] === 'profile') return benchProfileCommand(argv.slice(1));
  if (argv[0] === 'portal') return benchPortalCommand(argv.slice(1));
  if (argv[0] === 'handoff') return benchHandoffCommand(argv.slice(1));
  if (argv[0] === 'spans') return benchSpansCommand(argv.slice(1));
  // No target (only options): the whole report.
  if (argv[0] === undefined || argv[0].startsWith('-')) return benchReportCommand(argv);
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      events: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_USAGE}\n`);
    return 0;
  }
  const [what] = positionals;
  const { events, json } = values;
  const count = events === undefined ? 20_000 : Number(events);
  if (what !== 'ingress' || !Number.isInteger(count) || count < 1 || count > 1_000_000) {
    process.stderr.write(`${BENCH_USAGE}\n`);
    return 2;
  }
  let result: Awaited<ReturnType<typeof runIngressBench>>;
  try {
    result = await runIngressBench({
      connection: benchConnection(),
      events: count,
      report: (line) => process.stderr.write(`[bench] ${line}\n`),
    });
  } catch (err) {
    // Usually the stack is not running: say so instead of printing a stack trace.
    process.stderr.write(
      `hookstream bench: ${err instanceof Error ? err.message : String(err)} (is the stack up?)\n`,
    );
    return 1;
  }
  process.stdout.write(`${json ? JSON.stringify(result, null, 2) : formatIngressBench(result)}\n`);
  return 0;
}
