import { randomUUID } from 'node:crypto';
import type { ConnectionSettings } from '@hookstream/contracts';
import { createKafka } from '@hookstream/kafka';
import { httpLoad } from './http-load.ts';
import { type ChildService, spawnBareHttp, spawnIngress } from './ingress-child.ts';
import { startChildUsage } from './proc-usage.ts';
import { rawKafkaBench } from './raw-kafka.ts';
import type { BenchRow } from './stats.ts';

export interface IngressBenchOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  /** Events per measured run (each concurrency level, and the raw loop). */
  readonly events: number;
  /** Hard cap per run, whatever `events` says. */
  readonly runDeadlineMs?: number;
  readonly singleConcurrency?: readonly number[];
  readonly batchConcurrency?: readonly number[];
  readonly batchSize?: number;
  readonly report?: (line: string) => void;
}

export interface IngressBenchResult {
  readonly topic: string;
  readonly rows: readonly BenchRow[];
  /** Plain 1 KiB records. */
  readonly raw: BenchRow;
  /** 1 KiB records with the same headers the ingress writes. */
  readonly rawWithHeaders: BenchRow;
  /**
   * A bare node:http server (read, JSON.parse, 202) under the same load, one event per request
   * at the highest single-event concurrency: what HTTP alone allows.
   */
  readonly bareHttp: BenchRow;
  /** Best rate with one event per request / raw rate. */
  readonly singleRatio: number;
  /** Best HTTP rate of any mode / raw rate. */
  readonly bestRatio: number;
  /** Best HTTP rate of any mode / raw rate with the same headers. */
  readonly bestRatioSameHeaders: number;
}

const TOKEN = `bench-${randomUUID()}`;
const SINGLE_CONCURRENCY = [8, 32, 128];

/**
 * Runs the HTTP ingress (a child process) and a raw kafkajs sendBatch loop against the same
 * broker, on a topic of its own that is deleted afterwards. Bounded by event count and time.
 */
export async function runIngressBench(options: IngressBenchOptions): Promise<IngressBenchResult> {
  const report = options.report ?? (() => undefined);
  const deadline = options.runDeadlineMs ?? 20_000;
  const batchSize = options.batchSize ?? 50;
  const topic = `hookstream-bench-${randomUUID().slice(0, 8)}`;
  const admin = createKafka({
    ...options.connection.kafka,
    clientId: 'hookstream-bench',
    quiet: true,
  }).admin();
  await admin.connect();
  try {
    // Created here (6 partitions, 1 h retention) so the ingress finds it and the bench can delete it.
    await admin.ensureTopics([
      { topic, partitions: 6, replicationFactor: 1, config: { 'retention.ms': '3600000' } },
    ]);
    const ingress = await spawnIngress({ ...options, topic, token: TOKEN });
    let measured: Omit<IngressBenchResult, 'bareHttp'>;
    try {
      measured = await measure(options, ingress, topic, report, deadline, batchSize);
    } finally {
      await ingress.stop();
    }
    // After the ingress stopped, so the two servers never share the machine's two cores.
    const concurrency = Math.max(...(options.singleConcurrency ?? SINGLE_CONCURRENCY));
    report(`bare node:http server (parse, 202), one event per request, concurrency ${concurrency}…`);
    return { ...measured, bareHttp: await bareHttpLoad(options.events, concurrency, deadline) };
  } finally {
    await admin.deleteTopics([topic]).catch(() => undefined);
    await admin.disconnect();
  }
}

async function measure(
  options: IngressBenchOptions,
  ingress: ChildService,
  topic: string,
  report: (line: string) => void,
  deadline: number,
  batchSize: number,
): Promise<Omit<IngressBenchResult, 'bareHttp'>> {
  const { url } = ingress;
  // Warm-up: connections, schema cache, JIT.
  await httpLoad({
    url,
    token: TOKEN,
    events: Math.min(2000, options.events),
    concurrency: 16,
    eventsPerRequest: 1,
    deadlineMs: deadline,
  });
  report('raw kafkajs sendBatch (500 per batch, 2 in flight)…');
  const rawBefore = await rawKafkaBench(
    options.connection.kafka,
    topic,
    options.events,
    500,
    2,
    deadline,
    false,
  );
  const rows: BenchRow[] = [];
  const runs = [
    ...(options.singleConcurrency ?? SINGLE_CONCURRENCY).map((concurrency) => ({
      concurrency,
      eventsPerRequest: 1,
      what: 'one event per request',
    })),
    ...(options.batchConcurrency ?? [4, 16]).map((concurrency) => ({
      concurrency,
      eventsPerRequest: batchSize,
      what: `batches of ${batchSize}`,
    })),
  ];
  for (const { concurrency, eventsPerRequest, what } of runs) {
    report(`HTTP ingress, ${what}, concurrency ${concurrency}…`);
    rows.push(
      await withServerUsage(ingress.pid, () =>
        httpLoad({
          url,
          token: TOKEN,
          events: options.events,
          concurrency,
          eventsPerRequest,
          deadlineMs: deadline,
        }),
      ),
    );
  }
  report('raw kafkajs sendBatch (500 per batch, 2 in flight), second run…');
  const rawAfter = await rawKafkaBench(
    options.connection.kafka,
    topic,
    options.events,
    500,
    2,
    deadline,
    false,
  );
  // The better of two runs (one before, one after the HTTP runs): the ratio errs low, not high.
  const raw = rawAfter.eventsPerSecond > rawBefore.eventsPerSecond ? rawAfter : rawBefore;
  report('raw kafkajs sendBatch with CloudEvents-sized headers…');
  const rawWithHeaders = await rawKafkaBench(
    options.connection.kafka,
    topic,
    options.events,
    500,
    2,
    deadline,
    true,
  );
  const best = (list: BenchRow[]) => Math.max(0, ...list.map((r) => r.eventsPerSecond));
  const ratio = (rate: number, base: BenchRow) =>
    base.eventsPerSecond > 0 ? Math.round((rate / base.eventsPerSecond) * 100) / 100 : 0;
  return {
    topic,
    rows,
    raw,
    rawWithHeaders,
    singleRatio: ratio(best(rows.filter((r) => r.eventsPerCall === 1)), raw),
    bestRatio: ratio(best(rows), raw),
    bestRatioSameHeaders: ratio(best(rows), rawWithHeaders),
  };
}

/** The bare server under the ingress's one-event load, after the same warm-up. */
async function bareHttpLoad(events: number, concurrency: number, deadlineMs: number): Promise<BenchRow> {
  const bare = await spawnBareHttp();
  try {
    const load = { url: bare.url, token: TOKEN, eventsPerRequest: 1, deadlineMs };
    await httpLoad({ ...load, events: Math.min(2000, events), concurrency: 16 });
    const row = await withServerUsage(bare.pid, () => httpLoad({ ...load, events, concurrency }));
    return { ...row, name: 'bare node:http server (parse, 202)' };
  } finally {
    await bare.stop();
  }
}

/**
 * A load run with the server's CPU per event and RSS growth per request in flight, read from
 * /proc (the server is a child of ours): what the throughput cost the process that served it.
 */
async function withServerUsage(pid: number, run: () => Promise<BenchRow>): Promise<BenchRow> {
  const usage = await startChildUsage(pid);
  const row = await run();
  const { cpuMicros, rssGrowthBytes } = await usage.end();
  if (row.events === 0) return row;
  return {
    ...row,
    cpuMicrosPerEvent: Math.round((cpuMicros / row.events) * 10) / 10,
    rssKiBPerInFlight: Math.round((rssGrowthBytes / 1024 / row.concurrency) * 10) / 10,
  };
}
