import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { plaintextConnection } from '@hookstream/contracts';
import { createKafka, createRawProducer } from '@hookstream/kafka';
import { Pusher } from '@hookstream/pusher';
import { startTracing } from '@hookstream/telemetry';
import { DiagConsoleLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { Pool } from 'undici';
import { BenchEventCodec } from './bench-events.ts';

export interface BenchOptions {
  readonly brokers: readonly string[];
  readonly registryUrl: string;
  readonly events: number;
  readonly concurrency: number;
  readonly partitions: number;
  /** Also drain with tracing at 100 % sampling, alternating with runs without, in this run. */
  readonly tracing?: boolean;
}

/** Pusher throughput with and without tracing, each the mean of its runs. */
export interface TracingComparison {
  readonly runs: number;
  readonly offPerSecond: number;
  readonly onPerSecond: number;
  /** 1 − on/off: the share of throughput tracing costs. */
  readonly slowdown: number;
}

export interface BenchResult {
  readonly events: number;
  readonly concurrency: number;
  readonly partitions: number;
  readonly rawUndiciPerSecond: number;
  readonly pusherPerSecond: number;
  /** pusher / raw undici. */
  readonly ratio: number;
  readonly tracing?: TracingComparison;
}

/** Tracing runs alternate with untraced ones, so warm-up and machine noise hit both. */
const TRACING_ROUNDS = 3;

// A no-op endpoint in its own process, so neither side of the comparison shares its event loop.
const NOOP_ENDPOINT = `
const http = require('node:http');
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(204); res.end(); }); });
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/**
 * Deliveries per second from a backlog to a local no-op endpoint with no rate limit, next to a
 * raw undici POST loop with the same concurrency and body size against the same endpoint.
 */
export async function benchPush(
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<BenchResult> {
  const endpoint = spawn(process.execPath, ['-e', NOOP_ENDPOINT], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [chunk] = (await once(endpoint.stdout, 'data')) as [Buffer];
    const url = `http://127.0.0.1:${Number(chunk.toString().trim())}/hooks`;
    const topic = `hookstream.bench.${randomBytes(4).toString('hex')}`;
    progress(`producing a backlog of ${options.events} events to ${topic}`);
    await produceBacklog(options, topic);

    progress(`raw undici: ${options.events} POSTs, ${options.concurrency} at a time`);
    const raw = await rawUndici(url, options.events, options.concurrency);

    progress(`pusher: draining the backlog, concurrency ${options.concurrency}, no rate limit`);
    const pushed = await drainWithPusher(options, topic, url);
    const tracing = options.tracing ? await compareTracing(options, topic, url, pushed, progress) : undefined;
    return {
      events: options.events,
      concurrency: options.concurrency,
      partitions: options.partitions,
      rawUndiciPerSecond: Math.round(raw),
      pusherPerSecond: Math.round(pushed),
      ratio: Math.round((pushed / raw) * 1000) / 1000,
      ...(tracing ? { tracing } : {}),
    };
  } finally {
    stop(endpoint);
  }
}

export async function produceBacklog(options: BenchOptions, topic: string): Promise<void> {
  const kafka = createKafka({ brokers: options.brokers, clientId: 'hookstream-bench', quiet: true });
  const admin = kafka.admin();
  const producer = createRawProducer(kafka);
  await Promise.all([admin.connect(), producer.connect()]);
  try {
    await admin.ensureTopics([
      { topic, partitions: options.partitions, replicationFactor: 1, config: { 'retention.ms': '3600000' } },
    ]);
    const codec = await BenchEventCodec.forTopic(options.registryUrl, topic);
    const time = new Date().toISOString();
    for (let i = 0; i < options.events; i += 1000) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(1000, options.events - i) }, (_, j) =>
          codec.record({
            id: `bench-${i + j}`,
            type: 'shipment.updated',
            key: `ship-${(i + j) % 997}`,
            n: i + j,
            time,
          }),
        ),
      );
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await Promise.all([admin.disconnect(), producer.disconnect()]);
  }
}

/** The ceiling: POSTs of a body like the pusher's, as fast as undici goes at that concurrency. */
async function rawUndici(url: string, count: number, concurrency: number): Promise<number> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: concurrency });
  const body = JSON.stringify({
    shipment_id: 'ship-1',
    status: 'in_transit',
    n: 1,
    event_id: 'bench-1',
    subscription_id: 'bench',
    delivery_id: 'x'.repeat(26),
    attempt: 1,
    type: 'shipment.updated',
    occurred_at: new Date().toISOString(),
  });
  const headers = { 'content-type': 'application/json' };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const res = await pool.request({ method: 'POST', path: target.pathname, headers, body });
      await res.body.dump();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return count / seconds;
}

/**
 * Drains the same backlog again with new subscribers, alternating tracing at 100 % sampling
 * (exported over OTLP/HTTP to the configured collector, the local Jaeger by default) with
 * tracing off; the first untraced drain counts as an untraced run.
 */
async function compareTracing(
  options: BenchOptions,
  topic: string,
  url: string,
  firstOff: number,
  progress: (line: string) => void,
): Promise<TracingComparison> {
  const off = [firstOff];
  const on: number[] = [];
  // Dropped spans (a full export queue) would flatter the traced figure; say so if it happens.
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
  for (let round = 1; round <= TRACING_ROUNDS; round++) {
    progress(`pusher with tracing (100 % sampling), round ${round}`);
    const tracing = await startTracing({ serviceName: 'hookstream-pusher', sampleRatio: 1 });
    try {
      on.push(await drainWithPusher(options, topic, url));
    } finally {
      // Also restores the API's no-op globals: the next untraced run really has no SDK.
      await tracing.shutdown();
    }
    if (round < TRACING_ROUNDS) {
      progress(`pusher without tracing, round ${round + 1}`);
      off.push(await drainWithPusher(options, topic, url));
    }
  }
  diag.disable();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const offPerSecond = mean(off);
  const onPerSecond = mean(on);
  return {
    runs: on.length,
    offPerSecond: Math.round(offPerSecond),
    onPerSecond: Math.round(onPerSecond),
    slowdown: Math.round((1 - onPerSecond / offPerSecond) * 1000) / 1000,
  };
}

async function drainWithPusher(options: BenchOptions, topic: string, url: string): Promise<number> {
  const pusher = new Pusher(
    {
      definition: {
        name: `bench-${randomBytes(3).toString('hex')}`,
        url,
        eventTypes: ['*'],
        rate: { perSecond: 100_000, burst: 0 },
        concurrency: options.concurrency,
        timeoutMs: 10_000,
        retry: { delaysMs: [1000], maxAttempts: 3, maxAgeMs: 3_600_000, jitter: 0 },
        start: 'earliest',
        ordering: 'none',
        headers: {},
        allowPrivateNetwork: true,
      },
      signingKey: randomBytes(32),
    },
    {
      ...plaintextConnection(options.brokers, options.registryUrl),
      topic,
      log: (level, message, fields) => {
        if (level === 'warn' || level === 'error')
          process.stderr.write(`${JSON.stringify({ level, message, ...fields })}\n`);
      },
      onFatal: (error) => {
        throw error;
      },
    },
  );
  try {
    await pusher.start();
    // Timed from the moment the group is positioned; what was delivered before is subtracted.
    const started = performance.now();
    const before = pusher.counts.acknowledged;
    while (pusher.counts.acknowledged < options.events) await sleep(5);
    const seconds = (performance.now() - started) / 1000;
    return (options.events - before) / seconds;
  } finally {
    await pusher.stop();
  }
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null) child.kill('SIGTERM');
}
