import { parseArgs } from 'node:util';
import { formatTable } from '@hookstream/terminal';
import { benchRetryLateness } from '../retry-lateness-bench.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_RETRY_USAGE = `Usage: hookstream bench retry [--records <n>] [--tiers <ms,ms>] [--jitter <0..1>] [--json]

Retry-tier lateness: --records events (default 1000) each fail once per tier (default tiers
1000,10000 ms) before the endpoint accepts them; prints, per tier, how late each retry started
against the due time its tier record carries (actual − due: min, p50, p90, p99, max). --jitter
is the subscriber's retry jitter (default 0.2, the default for subscribers). Needs the stack.`;

/** `hookstream bench retry`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchRetryCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      records: { type: 'string', default: '1000' },
      tiers: { type: 'string', default: '1000,10000' },
      jitter: { type: 'string', default: '0.2' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_RETRY_USAGE}\n`);
    return 0;
  }
  const records = Number(values.records);
  const tiersMs = values.tiers.split(',').map(Number);
  const jitter = Number(values.jitter);
  if (!Number.isInteger(records) || records < 1 || records > 100_000)
    return bad('--records must be 1..100000');
  if (tiersMs.some((t) => !Number.isInteger(t) || t < 1))
    return bad('--tiers must be positive integers (ms)');
  if (!(jitter >= 0 && jitter <= 1)) return bad('--jitter must be between 0 and 1');
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  const result = await benchRetryLateness(
    { connection: benchConnection(), records, tiersMs, jitter },
    progress,
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  }
  process.stdout.write(
    `${formatTable(
      ['tier', 'delay', 'records', 'min', 'p50', 'p90', 'p99', 'max'],
      result.tiers.map((t) => [
        String(t.tier),
        `${t.delayMs} ms`,
        String(t.records),
        `${t.minMs} ms`,
        `${t.p50Ms} ms`,
        `${t.p90Ms} ms`,
        `${t.p99Ms} ms`,
        `${t.maxMs} ms`,
      ]),
    )}\nlateness = attempt start at the endpoint − due time in the tier record; jitter ${result.jitter}\n`,
  );
  return 0;
}

function bad(message: string): number {
  process.stderr.write(`hookstream bench retry: ${message}\n${BENCH_RETRY_USAGE}\n`);
  return 2;
}
