import type { IngressBenchResult } from './ingress-bench.ts';

/** The result as a plain-text table with the ratios underneath. */
export function formatIngressBench(result: IngressBenchResult): string {
  const header = [
    'run',
    'concurrency',
    'events/call',
    'events',
    'errors',
    'seconds',
    'events/s',
    'p50 ms',
    'p99 ms',
    'CPU µs/event',
    'RSS KiB/in flight',
  ];
  const rows = [...result.rows, result.raw, result.rawWithHeaders, result.bareHttp].map((r) => [
    r.name,
    String(r.concurrency),
    String(r.eventsPerCall),
    String(r.events),
    String(r.errors),
    r.seconds.toFixed(2),
    String(r.eventsPerSecond),
    r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    // The server's process (/proc); the raw loops run in the benchmark's own and are not measured.
    r.cpuMicrosPerEvent === undefined ? '–' : r.cpuMicrosPerEvent.toFixed(1),
    r.rssKiBPerInFlight === undefined ? '–' : r.rssKiBPerInFlight.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [
    line(header),
    ...rows.map(line),
    '',
    `HTTP ingress / raw kafkajs: ${result.singleRatio.toFixed(2)} with one event per request, ` +
      `${result.bestRatio.toFixed(2)} at best (any mode); ${result.bestRatioSameHeaders.toFixed(2)} at best ` +
      'against raw records with the same headers; ' +
      `${bareShare(result).toFixed(2)} of a bare node:http server with one event per request.`,
    "Latency is per request (per sendBatch for raw). CPU and RSS are the server process's, from /proc; the raw loops' CPU is this process's.",
  ].join('\n');
}

/** The best one-event-per-request ingress rate over the bare node:http server's. */
function bareShare(result: IngressBenchResult): number {
  const single = Math.max(
    0,
    ...result.rows.filter((r) => r.eventsPerCall === 1).map((r) => r.eventsPerSecond),
  );
  const bare = result.bareHttp.eventsPerSecond;
  return bare > 0 ? Math.round((single / bare) * 100) / 100 : 0;
}
