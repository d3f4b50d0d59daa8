import { parseArgs } from 'node:util';
import { loadStackConfig } from '@hookstream/stack';
import { type ArrivalGaps, arrivalGaps } from '../arrival-gaps.ts';
import { runLimiterBench } from '../limiter-bench.ts';
import { benchConnection } from './bench-connection.ts';
import { reachable } from './bench-report-command.ts';

export const BENCH_LIMITER_USAGE = `Usage: hookstream bench limiter [--rate <n>] [--events <n>] [--instances 1|2] [--json]

Rate-limiter accuracy, the report's limiter section alone: a backlog of --events (default 1500)
to a subscriber limited to --rate requests/s (default 100, burst 0), delivered by --instances
pusher processes (default 1; 2 share the limit through Redis: HOOKSTREAM_LIMITER_REDIS or the
stack's). Prints, as the endpoint saw it, the busiest sliding 1-second window, the share of the
limit used ((requests − 1) / (last − first arrival) / rate) and the gaps between arrivals (median,
p99, max, and the time lost to gaps over twice the interval). Needs the stack; about
events / rate seconds.`;

/** `hookstream bench limiter`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchLimiterCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      rate: { type: 'string', default: '100' },
      events: { type: 'string', default: '1500' },
      instances: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_LIMITER_USAGE}\n`);
    return 0;
  }
  const rate = Number(values.rate);
  const events = Number(values.events);
  const instances = Number(values.instances);
  // Up to 200/s the limiter spaces requests (the mode measured here); the receiver keeps every
  // arrival in memory, hence the bound on events.
  if (!(rate > 0 && rate <= 200)) return bad('--rate must be above 0 and at most 200');
  if (!Number.isInteger(events) || events < 2 || events > 20_000) return bad('--events must be 2..20000');
  if (instances !== 1 && instances !== 2) return bad('--instances must be 1 or 2');
  let redisUrl: string | undefined;
  if (instances === 2) {
    const stack = loadStackConfig(process.env);
    redisUrl = process.env.HOOKSTREAM_LIMITER_REDIS ?? `redis://${stack.host}:${stack.redis.port}`;
    if (!(await reachable(redisUrl))) {
      process.stderr.write(`hookstream bench limiter: two instances need Redis, none at ${redisUrl}\n`);
      return 1;
    }
  }
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  let gaps: ArrivalGaps = arrivalGaps([], 1000 / rate);
  const result = await runLimiterBench({
    connection: benchConnection(),
    rate,
    events,
    instances,
    redisUrl,
    progress,
    onArrivals: (times) => {
      gaps = arrivalGaps(times, 1000 / rate);
    },
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...result, gaps })}\n`);
    return 0;
  }
  const who = instances === 1 ? 'one pusher' : 'two pushers sharing the limit through Redis';
  process.stdout.write(
    `limiter       ${result.received} requests to a ${rate}/s subscriber, ${who}\n` +
      `busiest 1 s   ${result.maxInAnySecond} (limit ${rate})\n` +
      `limit used    ${result.usedPercent} % (${result.received} requests in ${result.spanSeconds} s)\n` +
      `arrival gaps  median ${gaps.medianMs} ms, p99 ${gaps.p99Ms} ms, max ${gaps.maxMs} ms; ` +
      `gaps over twice the interval cost ${gaps.stalledMs} ms\n`,
  );
  return 0;
}

function bad(message: string): number {
  process.stderr.write(`hookstream bench limiter: ${message}\n${BENCH_LIMITER_USAGE}\n`);
  return 2;
}
