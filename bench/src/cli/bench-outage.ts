import { parseArgs } from 'node:util';
import { formatTable } from '@hookstream/terminal';
import { benchOutage, type OutageRun } from '../outage-bench.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_OUTAGE_USAGE = `Usage: hookstream bench outage [--events <n>] [--outage-ms <ms>] [--probe-ms <ms>] [--json]

What a dead endpoint receives with the circuit breaker and without it: --events events
(default 200) wait when the endpoint starts answering 503; after --outage-ms (default 300000,
five minutes) it accepts everything. Runs twice (breaker on, then off, retry tiers 1, 5, 15 and
30 s) and prints the requests it got while down, the time to the first delivery after it came
back (target: within 2 probe intervals, --probe-ms, default 5000), and that every event arrived.
Needs the stack; takes about twice the outage.`;

/** `hookstream bench outage`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchOutageCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      events: { type: 'string', default: '200' },
      'outage-ms': { type: 'string', default: '300000' },
      'probe-ms': { type: 'string', default: '5000' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_OUTAGE_USAGE}\n`);
    return 0;
  }
  const events = Number(values.events);
  const outageMs = Number(values['outage-ms']);
  const probeIntervalMs = Number(values['probe-ms']);
  if (!Number.isInteger(events) || events < 1 || events > 100_000) return bad('--events must be 1..100000');
  if (!Number.isInteger(outageMs) || outageMs < 1000 || outageMs > 3_600_000)
    return bad('--outage-ms must be 1000..3600000');
  if (!Number.isInteger(probeIntervalMs) || probeIntervalMs < 100 || probeIntervalMs > 600_000)
    return bad('--probe-ms must be 100..600000');
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  const result = await benchOutage(
    { connection: benchConnection(), events, outageMs, probeIntervalMs },
    progress,
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  }
  const row = (r: OutageRun) => [
    r.breaker ? 'on' : 'off',
    String(r.requestsDuringOutage),
    `${r.firstDeliveryAfterRecoveryMs} ms`,
    `${r.drainMs} ms`,
    `${r.accepted}/${result.events}`,
    String(r.duplicates),
    String(r.deadLettered),
  ];
  process.stdout.write(
    `${formatTable(
      [
        'breaker',
        'requests while down',
        'first delivery after recovery',
        'all delivered after',
        'accepted',
        'duplicates',
        'dead-lettered',
      ],
      [row(result.withBreaker), row(result.withoutBreaker)],
    )}\nthe breaker spared the endpoint ${(result.requestsSpared * 100).toFixed(1)} % of the requests during a ${result.outageMs / 1000} s outage (probe every ${result.probeIntervalMs} ms)\n`,
  );
  return 0;
}

function bad(message: string): number {
  process.stderr.write(`hookstream bench outage: ${message}\n${BENCH_OUTAGE_USAGE}\n`);
  return 2;
}
