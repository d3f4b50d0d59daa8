import { parseArgs } from 'node:util';
import { benchPush } from '../push-bench.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_PUSH_USAGE = `Usage: hookstream bench push [--events <n>] [--concurrency <n>] [--partitions <n>] [--tracing] [--ordering [--rounds <n>]] [--json]

Deliveries per second of one pusher draining a backlog to a local no-op endpoint (no rate
limit), next to a raw undici POST loop against the same endpoint in the same run, and the ratio.
--tracing also drains the backlog with tracing at 100 % sampling (exported to OTLP/HTTP, the
stack's Jaeger by default), alternating with untraced runs, and prints the slowdown and the
CPU per delivery (process CPU over each drain ÷ deliveries) with tracing on and off.
--ordering also drains the backlog with ordering "key" and "strict" (997 keys, nothing failing),
--rounds times each (default 3), alternating, and prints the medians and strict/key.
Needs the local stack (npx hookstream stack up). Loopback only; bounded by --events.`;

/** \`hookstream bench push\`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchPushCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      events: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '64' },
      partitions: { type: 'string', default: '6' },
      tracing: { type: 'boolean', default: false },
      ordering: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '3' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_PUSH_USAGE}\n`);
    return 0;
  }
  const events = Number(values.events);
  const concurrency = Number(values.concurrency);
  const partitions = Number(values.partitions);
  const rounds = Number(values.rounds);
  if (
    ![events, concurrency, partitions, rounds].every((n) => Number.isInteger(n) && n > 0) ||
    events > 1_000_000 ||
    rounds > 20
  ) {
    process.stderr.write(
      'hookstream bench push: --events (≤ 1,000,000), --concurrency, --partitions and --rounds (≤ 20) must be positive integers\n',
    );
    return 2;
  }
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  const result = await benchPush(
    {
      connection: benchConnection(),
      events,
      concurrency,
      partitions,
      tracing: values.tracing,
      ...(values.ordering ? { orderingRounds: rounds } : {}),
    },
    progress,
  );
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    process.stdout.write(
      `pusher      ${result.pusherPerSecond} deliveries/s\n` +
        `raw undici  ${result.rawUndiciPerSecond} POSTs/s\n` +
        `ratio       ${(result.ratio * 100).toFixed(1)} %  (${result.events} events, concurrency ${result.concurrency}, ${result.partitions} partitions)\n` +
        (result.tracing
          ? `tracing     off ${result.tracing.offPerSecond}/s, on (100 % sampled) ${result.tracing.onPerSecond}/s: ${(result.tracing.slowdown * 100).toFixed(1)} % slower (mean of ${result.tracing.runs} runs each, alternating)\n` +
            `tracing CPU off ${result.tracing.offCpuMicros} µs, on ${result.tracing.onCpuMicros} µs per delivery: ${(result.tracing.cpuOverhead * 100).toFixed(1)} % more (medians)\n` +
            `runs        ${result.tracing.all.map((r) => `${r.traced ? 'on' : 'off'} ${r.cpuMicrosPerDelivery}`).join(', ')}\n`
          : '') +
        (result.ordering
          ? `ordering    key ${result.ordering.keyPerSecond}/s, strict ${result.ordering.strictPerSecond}/s: strict/key ${(result.ordering.ratio * 100).toFixed(1)} % (medians of ${result.ordering.runs} runs each, alternating; CPU per delivery key ${result.ordering.keyCpuMicros} µs, strict ${result.ordering.strictCpuMicros} µs)\n`
          : ''),
    );
  return 0;
}
