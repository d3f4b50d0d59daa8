import { parseArgs } from 'node:util';
import { type FleetBenchOptions, runFleetBench } from '../fleet-bench.ts';
import { hookstreamBin } from '../hookstream-bin.ts';
import { benchConnection } from './bench-connection.ts';
import { BENCH_INSTANCES_USAGE, benchInstancesCommand } from './bench-fleet-instances.ts';
import { formatFleetBench } from './bench-fleet-output.ts';
import { runInterruptible } from './interruptible-run.ts';

export const BENCH_FLEET_USAGE = `Usage: hookstream bench fleet [--subscribers <n>] [--active <n>] [--dead <n>] [--rate <n>]
                             [--idle-seconds <s>] [--load-seconds <s>] [--join-timeout <s>]
                             [--pod-memory <MiB>] [--tenants] [--json]

One pusher fleet process (hookstream push --all) hosting --subscribers subscribers (default
1000), registered in the catalog topic as \`subscribers apply\` writes them, each with an event
type of its own on an events topic of the run's own (6 partitions), all delivering to a local
receiver. With --tenants each has a tenant of its own instead (t-0001…, record version 4) and
all take one shared event type: the bench's events carry their subscriber's tenant as ce_tenant,
so the tenant routes them. Measures, against issue 11's targets:
  1. the time from the fleet's start until every group joined (Stable, with a member), its RSS
     (/proc VmRSS) and V8 heap then;
  2. idle CPU of the fleet and of the Kafka broker (the local stack's) over --idle-seconds
     (default 60), and the partitions the subscribers' own topics hold (created lazily: ~0);
  3. --active subscribers (default min(100, n)) at --rate events/s each (default 10) for
     --load-seconds (default 30), after one warm-up event each: e2e latency from scheduled
     publish to arrival, p50/p99;
  4. the same load with --dead of them (default min(10, active − 1); 0 skips it) pointing at an
     endpoint that died (connection refused): the others' delivered rate before and after.
--pod-memory runs the fleet in a memory cgroup of that many MiB, as a pod's limit does (Node
sizes its heap from it; the chart's pusher pod has 768), where the machine lets the benchmark
make one (root, a cgroup file system); elsewhere it says so and runs without.
Then deletes its subscriber records, groups and topics, also when it fails or is interrupted.
Progress goes to stderr; --json prints the result for scripts (its \`routing\` says which ran).
Tracing is off in the fleet. Needs the stack (npx hookstream stack up); the broker's CPU is
read from the machine's stack (HOOKSTREAM_STATE_DIR names another). Loopback only; every phase
is bounded in time.

${BENCH_INSTANCES_USAGE}`;

/** Options bounded here, so a typo never reaches Kafka. */
const LIMITS = {
  subscribers: [1, 5000],
  active: [1, 1000],
  dead: [0, 999],
  rate: [1, 100],
  'idle-seconds': [1, 3600],
  'load-seconds': [1, 600],
  'join-timeout': [10, 3600],
  'pod-memory': [64, 65_536],
} as const;
/** Events per second in all, whatever the split into subscribers × rate. */
const MAX_TOTAL_RATE = 10_000;

type Settings = Omit<FleetBenchOptions, 'connection' | 'hookstreamBin' | 'progress' | 'signal'>;

export type ParsedBenchFleet =
  | { readonly kind: 'help' }
  | { readonly kind: 'bad'; readonly error: string }
  | { readonly kind: 'run'; readonly settings: Settings; readonly json: boolean };

/** The command line, validated; touches nothing. */
export function parseBenchFleetArgs(args: readonly string[]): ParsedBenchFleet {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        ...Object.fromEntries(Object.keys(LIMITS).map((k) => [k, { type: 'string' as const }])),
        tenants: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    return { kind: 'bad', error: (err as Error).message };
  }
  if (values.help) return { kind: 'help' };
  const read = (name: keyof typeof LIMITS, fallback: number): number => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const [min, max] = LIMITS[name];
    const n = Number(raw);
    if (typeof raw === 'string' && raw.trim() !== '' && Number.isInteger(n) && n >= min && n <= max) return n;
    throw new BadOption(`--${name} must be an integer from ${min} to ${max}, got '${String(raw)}'`);
  };
  try {
    const subscribers = read('subscribers', 1000);
    const active = read('active', Math.min(100, subscribers));
    if (active > subscribers) throw new BadOption(`--active ${active} exceeds --subscribers ${subscribers}`);
    const dead = read('dead', Math.min(10, active - 1));
    if (dead >= active) throw new BadOption(`--dead ${dead} leaves none of the ${active} active healthy`);
    const rate = read('rate', 10);
    if (active * rate > MAX_TOTAL_RATE)
      throw new BadOption(`--active × --rate is at most ${MAX_TOTAL_RATE} events/s, got ${active * rate}`);
    return {
      kind: 'run',
      json: values.json === true,
      settings: {
        subscribers,
        routing: values.tenants === true ? 'tenant' : 'event-type',
        active,
        dead,
        perSubscriberPerSecond: rate,
        idleSeconds: read('idle-seconds', 60),
        loadSeconds: read('load-seconds', 30),
        joinTimeoutSeconds: read('join-timeout', 300),
        ...(values['pod-memory'] === undefined ? {} : { podMemoryMiB: read('pod-memory', 768) }),
      },
    };
  } catch (err) {
    if (err instanceof BadOption) return { kind: 'bad', error: err.message };
    throw err;
  }
}

class BadOption extends Error {}

/** `hookstream bench fleet`: a measurement, not a test; prints figures and targets, asserts nothing. */
export async function benchFleetCommand(args: readonly string[]): Promise<number> {
  if (args.some((a) => a === '--instances' || a.startsWith('--instances=')))
    return benchInstancesCommand(args);
  const parsed = parseBenchFleetArgs(args);
  if (parsed.kind === 'help') {
    process.stdout.write(`${BENCH_FLEET_USAGE}\n`);
    return 0;
  }
  if (parsed.kind === 'bad') {
    process.stderr.write(`hookstream bench fleet: ${parsed.error}\n${BENCH_FLEET_USAGE}\n`);
    return 2;
  }
  // A Ctrl-C still deletes what the run created: the phases stop, the cleanup runs.
  const outcome = await runInterruptible(
    'hookstream bench fleet',
    (control) =>
      runFleetBench({
        connection: benchConnection(),
        ...parsed.settings,
        // The product's own command (the `hookstream` package, which the bench measures).
        hookstreamBin: hookstreamBin(),
        ...control,
      }),
    ' (is the stack up?)',
  );
  if (!outcome.ok) return outcome.exitCode;
  const result = outcome.value;
  process.stdout.write(parsed.json ? `${JSON.stringify(result)}\n` : `${formatFleetBench(result)}\n`);
  return 0;
}
