import { parseArgs } from 'node:util';
import { formatTable } from '@hookstream/terminal';
import { type LatencySummary, runApiBench } from '../api-bench.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_API_USAGE = `Usage: hookstream bench api [--subscribers <n>] [--requests <n>] [--writes <n>] [--json]

The management API in this process against the stack, with --subscribers records of one tenant
of its own in the catalog (default 1000): GET /v1/subscribers (the same page of 100 again and
again, as a dashboard polls it), GET /v1/subscribers after a random cursor (another page each
time, measured afresh) and GET /v1/subscribers/{name}, --requests times each (default 300),
and PUT /v1/subscribers/{name}
with If-Match --writes times (default 100), one request at a time over loopback HTTP. Prints
p50/p95/p99/max per route; tombstones its subscribers afterwards. Targets (issue 27): GET p99
≤ 50 ms, PUT p99 ≤ 100 ms.`;

/** `hookstream bench api`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchApiCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      subscribers: { type: 'string', default: '1000' },
      requests: { type: 'string', default: '300' },
      writes: { type: 'string', default: '100' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_API_USAGE}\n`);
    return 0;
  }
  const subscribers = Number(values.subscribers);
  const requests = Number(values.requests);
  const writes = Number(values.writes);
  if (!Number.isInteger(subscribers) || subscribers < 1 || subscribers > 10_000)
    return bad('--subscribers must be 1..10000');
  if (!Number.isInteger(requests) || requests < 1 || requests > 100_000)
    return bad('--requests must be 1..100000');
  if (!Number.isInteger(writes) || writes < 1 || writes > 10_000) return bad('--writes must be 1..10000');
  const result = await runApiBench({
    connection: benchConnection(),
    subscribers,
    requests,
    writes,
    report: (line) => process.stderr.write(`bench: ${line}\n`),
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const row = (route: string, s: LatencySummary) => [
    route,
    String(s.count),
    String(s.errors),
    ...[s.p50Ms, s.p95Ms, s.p99Ms, s.maxMs].map((v) => v.toFixed(1)),
  ];
  const table = formatTable(
    ['route', 'calls', 'errors', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    [
      row('GET /v1/subscribers', result.list),
      row('GET /v1/subscribers?cursor=', result.listOtherPages),
      row('GET /v1/subscribers/{name}', result.get),
      row('PUT /v1/subscribers/{name}', result.put),
    ],
  );
  process.stdout.write(
    `catalog: ${result.subscribers} subscribers of the bench's tenant, ${result.catalogSubscribers} in all\n${table}\n`,
  );
  return 0;
}

function bad(message: string): number {
  process.stderr.write(`hookstream bench api: ${message}\n${BENCH_API_USAGE}\n`);
  return 2;
}
