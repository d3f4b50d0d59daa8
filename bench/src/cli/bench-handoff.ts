import { parseArgs } from 'node:util';
import { formatTable } from '@hookstream/terminal';
import { runHandoffBench } from '../handoff-bench.ts';

export const BENCH_HANDOFF_USAGE = `Usage: hookstream bench handoff [--records <n>] [--json]

What signing in a worker thread would save the pusher's event loop: the main thread's CPU per
record when it signs each record itself (HMAC-SHA256 of id.timestamp.body, as the pusher does),
against handing records to a worker thread in batches of 1, 16 and 64 (4 batches in flight) and
taking back the signatures; 1 KiB and 16 KiB bodies. --records: per run (default 20000, at most
200000). Each run once uncounted, then measured. No Kafka, no HTTP.`;

/** `hookstream bench handoff`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchHandoffCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      records: { type: 'string', default: '20000' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_HANDOFF_USAGE}\n`);
    return 0;
  }
  const records = Number(values.records);
  if (!Number.isInteger(records) || records < 100 || records > 200_000) {
    process.stderr.write(`hookstream bench handoff: --records must be 100..200000\n${BENCH_HANDOFF_USAGE}\n`);
    return 2;
  }
  const rows = await runHandoffBench(
    { records, bodyBytes: [1024, 16 * 1024], batchSizes: [1, 16, 64], inFlight: 4 },
    (line) => process.stderr.write(`${line}\n`),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ records, rows }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(
    `${formatTable(
      ['body', 'signed by', 'main-thread CPU µs/record', 'worker CPU µs/record', 'records/s'],
      rows.map((r) => [
        `${r.bodyBytes / 1024} KiB`,
        r.mode === 'inline' ? 'the event loop' : `a worker, batches of ${r.mode}`,
        r.mainCpuUsPerRecord.toFixed(2),
        r.workerCpuUsPerRecord.toFixed(2),
        Math.round(r.recordsPerSecond).toLocaleString('en-US'),
      ]),
    )}\n`,
  );
  return 0;
}
