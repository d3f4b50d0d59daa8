import { parseArgs } from 'node:util';
import { formatTable } from '@hookstream/terminal';
import { runE2eBench } from '../e2e-bench.ts';
import { atMost } from '../histogram-scrape.ts';
import type { LatencySummary } from '../stats.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_E2E_USAGE = `Usage: hookstream bench e2e [--rate <n>] [--seconds <n>] [--events <n>] [--concurrency <n>] [--json]

Ingress → Kafka → pusher → endpoint, the ingress and a pusher in processes of their own: first
--events (default 20000) as fast as --concurrency connections go (default 64), then an open-loop
run paced at --rate events/s (default: half of the first run's rate) for --seconds (default 10).
Prints both rates and the paced run's latency from scheduled publish to arrival at the endpoint
(p50, p90, p99, max). A low --rate shows the pipeline's floor; half load shows it under load.
Needs the stack.`;

/** `hookstream bench e2e`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchE2eCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      rate: { type: 'string' },
      seconds: { type: 'string', default: '10' },
      events: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '64' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_E2E_USAGE}\n`);
    return 0;
  }
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  const seconds = Number(values.seconds);
  const events = Number(values.events);
  const concurrency = Number(values.concurrency);
  if (rate !== undefined && !(rate > 0 && rate <= 100_000)) return bad('--rate must be 0..100000 events/s');
  if (!(seconds > 0 && seconds <= 600)) return bad('--seconds must be 0..600');
  if (!Number.isInteger(events) || events < 1 || events > 1_000_000)
    return bad('--events must be 1..1000000');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024)
    return bad('--concurrency must be 1..1024');
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  const result = await runE2eBench({
    connection: benchConnection(),
    events,
    halfLoadSeconds: seconds,
    concurrency,
    progress,
    ...(rate === undefined ? {} : { pacedPerSecond: rate }),
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  }
  const { maxLoad, halfLoad } = result;
  const l = halfLoad.latency;
  process.stdout.write(
    `${formatTable(
      ['run', 'events/s', 'events', 'delivered', 'p50', 'p90', 'p99', 'max'],
      [
        [
          'maximum load',
          String(maxLoad.eventsPerSecond),
          String(maxLoad.events),
          String(maxLoad.delivered),
          '',
          '',
          '',
          '',
        ],
        [
          'paced',
          String(halfLoad.targetPerSecond),
          String(halfLoad.events),
          String(halfLoad.delivered),
          `${l.p50Ms} ms`,
          `${l.p90Ms} ms`,
          `${l.p99Ms} ms`,
          `${l.maxMs} ms`,
        ],
        part('  publish → 202', halfLoad.untilAccepted),
        part('    publish → written', halfLoad.untilWritten),
        part('    written → 202', halfLoad.writtenToAccepted),
        [
          '      in the ingress',
          '',
          '',
          String(halfLoad.inIngress.requests),
          atMost(halfLoad.inIngress.p50AtMostMs),
          atMost(halfLoad.inIngress.p90AtMostMs),
          atMost(halfLoad.inIngress.p99AtMostMs),
          '',
        ],
        part('  202 → arrival', halfLoad.acceptedToArrival),
      ],
    )}\nlatency = arrival at the endpoint − scheduled publish; in the ingress: request received → acks=all, from its /metrics histogram (bucket bounds, ms); ${result.duplicates} duplicate arrivals\n`,
  );
  return 0;
}

/** A row of the paced run's breakdown. */
function part(label: string, p: LatencySummary): string[] {
  return [label, '', '', String(p.count), `${p.p50Ms} ms`, `${p.p90Ms} ms`, `${p.p99Ms} ms`, `${p.maxMs} ms`];
}

function bad(message: string): number {
  process.stderr.write(`hookstream bench e2e: ${message}\n${BENCH_E2E_USAGE}\n`);
  return 2;
}
