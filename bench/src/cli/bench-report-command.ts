import { connect } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { kafkaLibsDir, loadStackConfig } from '@hookstream/stack';
import { type BenchReport, runBenchReport, scaleFor } from '../bench-report.ts';
import { DEFAULT_SECTIONS } from '../default-sections.ts';
import { fleetSection } from '../section-fleet.ts';
import { writeBenchReport } from '../write-report.ts';
import { benchConnection } from './bench-connection.ts';

const RESULTS = resolve(import.meta.dirname, '../../results');
/** As `bench fleet --subscribers` allows. */
const MAX_FLEET = 5000;
/** The fleet of --smoke unless --fleet-subscribers says otherwise: one idle, one healthy, one dead at least. */
const SMOKE_FLEET = 3;

export const BENCH_REPORT_USAGE = `Usage: hookstream bench [--quick | --smoke] [--events <n>] [--only <ids>] [--fleet [--fleet-subscribers <n>]] [--out <dir>] [--json]

Runs every benchmark against the local stack and writes a Markdown report and a PNG chart to
bench/results/ (bench-<time>.md/.png, copied to latest.md/.png): Kafka's own perf tests, the
ingress next to raw kafkajs sendBatch and a bare node:http server, the pusher next to a plain
undici loop, ingress→endpoint latency at half of the maximum end-to-end load, rate-limiter
accuracy, retry lateness, the management API's latency, batched against unbatched delivery,
pull against push, and reconcile over a million events, each figure with its baseline from the
same run and the targets met or missed. Progress goes to stderr. Takes several minutes; a
benchmark, not a test.

Options:
  --quick         tiny loads (seconds): checks that every part runs, figures mean nothing
  --smoke         the smallest loads, every section and the fleet (${SMOKE_FLEET} subscribers unless
                  --fleet-subscribers): the report's shape in about a minute, figures mean
                  nothing (the smoke test runs it); not with --quick or --events
  --events <n>    events per ingress, push and end-to-end run (default 20000)
  --only <ids>    comma-separated sections: ${DEFAULT_SECTIONS.map((s) => s.id).join(', ')} (and fleet with --fleet or --smoke)
  --fleet         also the fleet section: one fleet process of --fleet-subscribers subscribers
                  beside the floor of as many plain kafkajs consumers (minutes at 1000)
  --fleet-subscribers <n>  1..${MAX_FLEET} (default 1000; ${SMOKE_FLEET} with --smoke)
  --out <dir>     where to write (default bench/results of this repository)
  --json          also print the whole report, raw results included, on stdout`;

/** `hookstream bench`: exit 0 when every section ran (targets missed or not), 1 otherwise. */
export async function benchReportCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      quick: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      events: { type: 'string' },
      only: { type: 'string' },
      fleet: { type: 'boolean', default: false },
      'fleet-subscribers': { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_REPORT_USAGE}\n`);
    return 0;
  }
  const events = values.events === undefined ? undefined : Number(values.events);
  // --smoke runs every section, so the fleet too, at a size that joins in seconds.
  const fleet = values.fleet || values.smoke;
  const fleetSubscribers = Number(values['fleet-subscribers'] ?? (values.smoke ? SMOKE_FLEET : 1000));
  // A Ctrl-C during the fleet section still deletes what it created: its waits end, its cleanup runs.
  const interrupt = new AbortController();
  const available = [
    ...DEFAULT_SECTIONS,
    ...(fleet ? [fleetSection(fleetSubscribers, interrupt.signal)] : []),
  ];
  const only = values.only?.split(',').map((s) => s.trim());
  const sections = available.filter((s) => only === undefined || only.includes(s.id));
  const unknown = only?.filter((id) => !available.some((s) => s.id === id)) ?? [];
  if (
    (events !== undefined && !(Number.isInteger(events) && events > 0 && events <= 1_000_000)) ||
    !(Number.isInteger(fleetSubscribers) && fleetSubscribers >= 1 && fleetSubscribers <= MAX_FLEET) ||
    (values['fleet-subscribers'] !== undefined && !fleet) ||
    (values.smoke && (values.quick || events !== undefined)) ||
    unknown.length > 0
  ) {
    process.stderr.write(`${BENCH_REPORT_USAGE}\n`);
    return 2;
  }
  const stack = loadStackConfig(process.env);
  const redisUrl = process.env.HOOKSTREAM_LIMITER_REDIS ?? `redis://${stack.host}:${stack.redis.port}`;
  const progress = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const onSignal = () => {
    progress('interrupted: cleaning up');
    interrupt.abort();
  };
  if (fleet) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  let report: BenchReport;
  try {
    report = await runBenchReport(sections, {
      connection: benchConnection(),
      redisUrl: (await reachable(redisUrl)) ? redisUrl : undefined,
      kafkaLibsDir: kafkaLibsDir(stack),
      scale: scaleFor(values.smoke ? 'smoke' : values.quick ? 'quick' : 'full', events),
      progress,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (interrupt.signal.aborted) return 130;
  const command = ['npx hookstream bench', ...args].join(' ');
  const written = await writeBenchReport(report, values.out ?? RESULTS, command);
  progress(`report: ${written.markdown}`);
  progress(`chart:  ${written.png}`);
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const missed = report.sections.flatMap((s) => s.targets).filter((t) => !t.met);
  for (const t of missed) progress(`missed: ${t.target}: ${t.measured}`);
  const failed = report.sections.filter((s) => s.error !== null);
  for (const s of failed) progress(`failed: ${s.title}: ${s.error}`);
  return failed.length > 0 ? 1 : 0;
}

/** Whether something listens at the URL's host and port (Redis is optional in the local stack). */
export function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port || 6379), timeout: 1000 });
    const end = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.once('connect', () => end(true));
    socket.once('error', () => end(false));
    socket.once('timeout', () => end(false));
  });
}
