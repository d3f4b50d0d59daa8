import { parseArgs } from 'node:util';
import { DISRUPTIONS, type DisruptionId } from '../fleet-disruptions.ts';
import { type InstancesBenchOptions, runInstancesBench } from '../fleet-instances-bench.ts';
import { instancesTargets } from '../fleet-instances-targets.ts';
import { hookstreamBin } from '../hookstream-bin.ts';
import { benchConnection } from './bench-connection.ts';
import { formatInstancesBench } from './bench-fleet-instances-output.ts';
import { runInterruptible } from './interruptible-run.ts';

export const BENCH_INSTANCES_USAGE = `Usage: hookstream bench fleet --instances <n> [--shards <n>] [--subscribers <n>] [--active <n>]
                             [--rate <n>] [--idle-seconds <s>] [--settle-seconds <s>]
                             [--session-timeout <ms>] [--disruptions <list>] [--join-timeout <s>]
                             [--pod-memory <MiB>] [--redis <url>] [--json]

Several fleet instances, each its own process (hookstream push --all --match <shard> --instance
<name>), as a deployment runs them: --subscribers (default 1000) split into --shards \`--match\`
shards (default 1), each run by --instances instances (so each subscriber's group has that many
members). Measures:
  1. the time from the first start until every group is Stable with every instance of its shard;
  2. idle CPU of all instances and of the broker over --idle-seconds (default 60), the machine's
     load average, group joins per second;
  3. a steady load of --active subscribers (default min(100, n), spread over the shards) at
     --rate events/s each (default 10), kept through --disruptions of shard 1, in turn (default
     all: ${DISRUPTIONS.join(',')}), each followed by --settle-seconds of load (default 20):
     the time until every group is owned again, duplicates and losses at the receiver, latency
     of the subscribers whose groups moved (shard 1) and of those that did not (the other
     shards), broker CPU, joins per second, RSS and event-loop delay of every instance.
--session-timeout (default 30000, the pusher's own default) is what a crash waits out. --redis
shares destination limits between the instances as a deployment of several must (default
HOOKSTREAM_LIMITER_REDIS; none: each instance limits alone). --pod-memory runs each instance in a
memory cgroup of that limit where the machine allows. Deletes what it created; loopback only;
every phase is bounded in time.`;

const LIMITS = {
  instances: [1, 10],
  shards: [1, 20],
  subscribers: [1, 5000],
  active: [1, 1000],
  rate: [1, 100],
  'idle-seconds': [1, 3600],
  'settle-seconds': [1, 600],
  'session-timeout': [6000, 300_000],
  'join-timeout': [10, 3600],
  'pod-memory': [64, 65_536],
} as const;
const MAX_TOTAL_RATE = 5000;

type Settings = Omit<InstancesBenchOptions, 'connection' | 'hookstreamBin' | 'progress' | 'signal'>;

export type ParsedBenchInstances =
  | { readonly kind: 'help' }
  | { readonly kind: 'bad'; readonly error: string }
  | { readonly kind: 'run'; readonly settings: Settings; readonly json: boolean };

class BadOption extends Error {}

/** The command line, validated; touches nothing. */
export function parseBenchInstancesArgs(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ParsedBenchInstances {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        ...Object.fromEntries(Object.keys(LIMITS).map((k) => [k, { type: 'string' as const }])),
        disruptions: { type: 'string' },
        redis: { type: 'string' },
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
    const instances = read('instances', 3);
    const shards = read('shards', 1);
    const subscribers = read('subscribers', 1000);
    if (shards > subscribers) throw new BadOption(`--shards ${shards} exceeds --subscribers ${subscribers}`);
    const active = read('active', Math.min(100, subscribers));
    if (active > subscribers) throw new BadOption(`--active ${active} exceeds --subscribers ${subscribers}`);
    const rate = read('rate', 10);
    if (active * rate > MAX_TOTAL_RATE)
      throw new BadOption(`--active × --rate is at most ${MAX_TOTAL_RATE} events/s, got ${active * rate}`);
    const disruptions = parseDisruptions(values.disruptions);
    const needsTwo = disruptions.some((d) => d === 'crash' || d === 'stop');
    if (needsTwo && instances < 2)
      throw new BadOption('--instances 1 cannot lose an instance (crash, stop): use 2 or more');
    const redis = typeof values.redis === 'string' ? values.redis : env.HOOKSTREAM_LIMITER_REDIS;
    if (redis !== undefined && !/^rediss?:\/\//.test(redis))
      throw new BadOption(`--redis must be a redis:// or rediss:// URL, got '${redis}'`);
    return {
      kind: 'run',
      json: values.json === true,
      settings: {
        instancesPerShard: instances,
        shards,
        subscribers,
        active,
        perSubscriberPerSecond: rate,
        idleSeconds: read('idle-seconds', 60),
        settleSeconds: read('settle-seconds', 20),
        sessionTimeoutMs: read('session-timeout', 30_000),
        joinTimeoutSeconds: read('join-timeout', 300),
        disruptions,
        ...(values['pod-memory'] === undefined ? {} : { podMemoryMiB: read('pod-memory', 768) }),
        ...(redis === undefined ? {} : { redisUrl: redis }),
      },
    };
  } catch (err) {
    if (err instanceof BadOption) return { kind: 'bad', error: err.message };
    throw err;
  }
}

function parseDisruptions(raw: string | boolean | undefined): DisruptionId[] {
  if (raw === undefined || typeof raw !== 'string') return [...DISRUPTIONS];
  const ids = raw
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  const unknown = ids.filter((d) => !(DISRUPTIONS as readonly string[]).includes(d));
  if (unknown.length > 0 || ids.length === 0)
    throw new BadOption(`--disruptions: expected some of ${DISRUPTIONS.join(',')}, got '${raw}'`);
  return ids as DisruptionId[];
}

/** `hookstream bench fleet --instances`: a measurement, not a test; prints figures and targets. */
export async function benchInstancesCommand(args: readonly string[]): Promise<number> {
  const parsed = parseBenchInstancesArgs(args);
  if (parsed.kind === 'help') {
    process.stdout.write(`${BENCH_INSTANCES_USAGE}\n`);
    return 0;
  }
  if (parsed.kind === 'bad') {
    process.stderr.write(`hookstream bench fleet: ${parsed.error}\n${BENCH_INSTANCES_USAGE}\n`);
    return 2;
  }
  const outcome = await runInterruptible('hookstream bench fleet', (control) =>
    runInstancesBench({
      connection: benchConnection(),
      ...parsed.settings,
      hookstreamBin: hookstreamBin(),
      ...control,
    }),
  );
  if (!outcome.ok) return outcome.exitCode;
  const result = outcome.value;
  const targets = instancesTargets(result);
  process.stdout.write(
    parsed.json
      ? `${JSON.stringify({ ...result, targets })}\n`
      : `${formatInstancesBench(result, targets)}\n`,
  );
  return 0;
}
