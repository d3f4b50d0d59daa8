import { parseArgs } from 'node:util';
import { benchPull } from '../pull-bench.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_PULL_USAGE = `Usage: hookstream bench pull [--events <n>] [--max <n>] [--pullers <n>] [--partitions <n>] [--concurrency <n>] [--json]

Pull against push on one backlog (--events, default 200000, over --partitions, default 6): the
management API serving a pull subscriber in its own process, --pullers clients (default 2)
each leasing --max events (default 500) and acknowledging them at once by cursor, until the
backlog is through; then one pusher drains the same backlog to a no-op endpoint (--concurrency,
default 64). Prints events/s of both and pull/push. Target (issue 29): pull ≥ 20,000 events/s.
Needs the local stack (npx hookstream stack up). Loopback only; bounded by --events.`;

/** `hookstream bench pull`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchPullCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      events: { type: 'string', default: '200000' },
      max: { type: 'string', default: '500' },
      pullers: { type: 'string', default: '2' },
      partitions: { type: 'string', default: '6' },
      concurrency: { type: 'string', default: '64' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_PULL_USAGE}\n`);
    return 0;
  }
  const [events, max, pullers, partitions, concurrency] = [
    values.events,
    values.max,
    values.pullers,
    values.partitions,
    values.concurrency,
  ].map(Number) as [number, number, number, number, number];
  if (
    ![events, max, pullers, partitions, concurrency].every((n) => Number.isInteger(n) && n > 0) ||
    events > 1_000_000 ||
    max > 1000 ||
    pullers > 16
  ) {
    process.stderr.write(
      'hookstream bench pull: --events (≤ 1,000,000), --max (≤ 1000), --pullers (≤ 16), --partitions and --concurrency must be positive integers\n',
    );
    return 2;
  }
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  const result = await benchPull(
    { connection: benchConnection(), events, max, pullers, partitions, concurrency },
    progress,
  );
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    process.stdout.write(
      `pull   ${result.pullPerSecond} events/s (${result.pullers} pullers, max ${result.max}, ${result.leases} leases)\n` +
        `push   ${result.pushPerSecond} events/s (no-op endpoint, concurrency ${concurrency})\n` +
        `ratio  ${(result.ratio * 100).toFixed(1)} %  (${result.events} events, ${result.partitions} partitions)\n` +
        `CPU    API ${result.pullCpuMicrosPerEvent} µs per event (/proc), pusher ${result.pushCpuMicrosPerDelivery} µs per delivery\n` +
        `RSS    API ${result.pullRssKiBPerLease} KiB growth per lease in flight\n`,
    );
  return 0;
}
