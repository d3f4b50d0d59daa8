import { parseArgs } from 'node:util';
import { loadStackConfig } from '@hookstream/stack';
import { runLimiterWaitBench } from '../limiter-wait-bench.ts';
import { reachable } from './bench-report-command.ts';

export const BENCH_LIMITER_WAIT_USAGE = `Usage: hookstream bench limiter-wait [--destinations <n>] [--per-burst <n>] [--seconds <n>] [--local] [--json]

How long a send waits in the rate limiter when a fleet asks the way it does: --destinations
(default 100) destinations of 100/s each, every one handed --per-burst (default 10) sends at once
each second for --seconds (default 5), alternately by two instances sharing the limits through
Redis (HOOKSTREAM_LIMITER_REDIS or the stack's); --local: each limiter on its own, no Redis (each
instance then applies the full rate). Shared, the ideal wait of a burst's k-th send is k × 10 ms. Prints the wait's p50, p99 and max, and this
process's CPU per send. No Kafka, no HTTP: the limiter alone.`;

/** `hookstream bench limiter-wait`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchLimiterWaitCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      destinations: { type: 'string', default: '100' },
      'per-burst': { type: 'string', default: '10' },
      seconds: { type: 'string', default: '5' },
      local: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_LIMITER_WAIT_USAGE}\n`);
    return 0;
  }
  const destinations = Number(values.destinations);
  const perBurst = Number(values['per-burst']);
  const seconds = Number(values.seconds);
  if (!Number.isInteger(destinations) || destinations < 1 || destinations > 2000)
    return bad('--destinations must be 1..2000');
  if (!Number.isInteger(perBurst) || perBurst < 1 || perBurst > 100) return bad('--per-burst must be 1..100');
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 120) return bad('--seconds must be 1..120');
  let redisUrl: string | undefined;
  if (!values.local) {
    const stack = loadStackConfig(process.env);
    redisUrl = process.env.HOOKSTREAM_LIMITER_REDIS ?? `redis://${stack.host}:${stack.redis.port}`;
    if (!(await reachable(redisUrl))) {
      process.stderr.write(`hookstream bench limiter-wait: no Redis at ${redisUrl} (or pass --local)\n`);
      return 1;
    }
  }
  const result = await runLimiterWaitBench({ destinations, perBurst, seconds, redisUrl });
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ destinations, perBurst, seconds, clustered: !values.local, ...result })}\n`,
    );
    return 0;
  }
  const how = values.local ? 'each limiter alone' : 'two instances sharing them through Redis';
  // Alone, each instance applies the full rate to its half of a burst.
  const idealMs = values.local ? perBurst * 2.5 : perBurst * 5;
  process.stdout.write(
    `limiter wait  ${result.sends} sends, ${destinations} destinations x ${perBurst} a second, ${how}\n` +
      `wait          p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, max ${result.maxMs} ms (ideal p50 ${idealMs} ms)\n` +
      `cpu           ${result.cpuUsPerSend} µs per send\n`,
  );
  return 0;
}

function bad(message: string): number {
  process.stderr.write(`hookstream bench limiter-wait: ${message}\n${BENCH_LIMITER_WAIT_USAGE}\n`);
  return 2;
}
