import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionSettings, SubscriberDefinition } from '@hookstream/contracts';
import { createKafka, createRawProducer } from '@hookstream/kafka';
import { Pusher } from '@hookstream/pusher';
import { Pool } from 'undici';
import { BenchEventCodec, benchPayload } from './bench-events.ts';
import { startWindowProfile } from './bench-profiling.ts';
import { removeBenchSubscribers, removeBenchTopics } from './bench-topic.ts';
import { consumeAndPostLoop } from './consume-post-loop.ts';
import { withHttpsNoopEndpoint } from './https-endpoint.ts';
import { compareModes, type ModeComparison } from './mode-comparison.ts';
import {
  compareTracing,
  cpuWindow,
  type Drain,
  type DrainMeasure,
  type TracingComparison,
} from './tracing-cost.ts';

export type { ModeComparison, ModeRun } from './mode-comparison.ts';
export type { TracingComparison, TracingRun } from './tracing-cost.ts';

export interface BenchOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  readonly events: number;
  readonly concurrency: number;
  readonly partitions: number;
  /** Also drain with tracing at 100 % sampling, alternating with runs without, in this run. */
  readonly tracing?: boolean;
  /**
   * The backlog the tracing comparison drains; the main backlog when unset, else a smaller
   * topic of its own (the full report keeps the comparison short).
   */
  readonly tracingEvents?: number;
  /** Traced and untraced runs each; 3 when unset. */
  readonly tracingRounds?: number;
  /** The share of records the traced drains sample; 1 (every record, the measure) when unset. */
  readonly tracingSampleRatio?: number;
  /**
   * Also drain the backlog this many times with `ordering: "key"` and as many with `"strict"`,
   * alternating, nothing failing: what strict order costs when it holds nothing back.
   */
  readonly orderingRounds?: number;
  /**
   * Also drain the backlog this many times unbatched and as many with `batch.maxEvents` of
   * `batchEvents` (100 unless set), alternating: what batching gains.
   */
  readonly batchRounds?: number;
  readonly batchEvents?: number;
  /** The no-op endpoint answers after this long (0: at once), as a remote endpoint would. */
  readonly endpointDelayMs?: number;
  /** Counted rounds of the plain loop and the pusher each, after one warm-up of each; 3 when unset. */
  readonly rounds?: number;
  /** false: no uncounted warm-up drains before any comparison (the smoke scale); true when unset. */
  readonly warmUp?: boolean;
  /**
   * Also drain a backlog of this many events of HTTPS_PAYLOAD_BYTES each to an https endpoint
   * (a self-signed certificate made at run time), against the plain undici loop POSTing bodies of
   * that size over https, `rounds` each, interleaved.
   */
  readonly httpsEvents?: number;
}

/** The https row's payload: 16 KiB per event (issue 45), an event's `payload` field. */
export const HTTPS_PAYLOAD_BYTES = 16 * 1024;

/** The pusher over https with 16 KiB events, against the plain undici loop doing the same POSTs. */
export interface HttpsComparison extends ModeComparison<ComparedDelivery> {
  readonly events: number;
  readonly payloadBytes: number;
}

/** The pusher's rate is compared with a plain undici loop's, their runs interleaved. */
export type ComparedDelivery = 'plain undici loop' | 'pusher';
/** And with a hand-written consume → POST → commit loop's: what the pusher's features cost. */
export type ComparedConsumer = 'consume-and-POST loop' | 'pusher';

/** The orderings compared: strict's promise is to cost nothing over `key` while nothing fails. */
export type ComparedOrdering = 'key' | 'strict';
/** Batching compared: one request per event, against `batch` (grouped by tenant, 100 ms wait). */
export type ComparedBatching = 'unbatched' | 'batched';

export interface BenchResult {
  readonly events: number;
  readonly concurrency: number;
  readonly partitions: number;
  /** Medians of the counted rounds. */
  readonly rawUndiciPerSecond: number;
  readonly pusherPerSecond: number;
  /** pusher / raw undici, of the medians. */
  readonly ratio: number;
  /** Every run of both, warm-ups apart. */
  readonly rate: ModeComparison<ComparedDelivery>;
  /** The consume-and-POST loop (consume-post-loop.ts) against the pusher, interleaved. */
  readonly loop: ModeComparison<ComparedConsumer>;
  readonly tracing?: TracingComparison;
  readonly ordering?: ModeComparison<ComparedOrdering>;
  readonly batch?: ModeComparison<ComparedBatching> & { readonly maxEvents: number };
  readonly endpointDelayMs: number;
  readonly https?: HttpsComparison;
}

/** Tracing runs alternate with untraced ones, so warm-up and machine noise hit both. */
const TRACING_ROUNDS = 3;
/**
 * A pusher is a long-lived process: its rate is that of code V8 has optimised, as the plain
 * loop's is, so each is measured after a warm-up run and as the median of interleaved runs.
 */
const PUSH_ROUNDS = 3;

// A no-op endpoint in its own process, so neither side of the comparison shares its event loop.
const NOOP_ENDPOINT = `
const http = require('node:http');
const delayMs = Number(process.argv[1] ?? 0);
const answer = (res) => { res.writeHead(204); res.end(); };
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { if (delayMs > 0) setTimeout(answer, delayMs, res); else answer(res); }); });
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
  const endpointDelayMs = options.endpointDelayMs ?? 0;
  const result = await withNoopEndpoint(endpointDelayMs, async (url) => {
    const topic = `hookstream.bench.${randomBytes(4).toString('hex')}`;
    try {
      return await pushFromBacklog(options, topic, url, progress);
    } finally {
      // The tracing comparison's own backlog, when it has one, is `<topic>.tracing`.
      await removeBenchTopics(options.connection.kafka, [topic, `${topic}.tracing`]);
    }
  });
  if (options.httpsEvents === undefined) return result;
  return { ...result, https: await benchHttps({ ...options, events: options.httpsEvents }, progress) };
}

/**
 * The pusher delivering events of 16 KiB to a local https endpoint, next to the plain undici loop
 * POSTing bodies of the same size over https to it, interleaved after a warm-up of each.
 */
async function benchHttps(options: BenchOptions, progress: (line: string) => void): Promise<HttpsComparison> {
  const topic = `hookstream.bench.${randomBytes(4).toString('hex')}.https`;
  try {
    progress(`producing a backlog of ${options.events} events of ${HTTPS_PAYLOAD_BYTES} bytes to ${topic}`);
    await produceBacklog(options, topic, HTTPS_PAYLOAD_BYTES);
    return await withHttpsNoopEndpoint(async (url) => {
      progress(
        `https, ${HTTPS_PAYLOAD_BYTES / 1024} KiB events: plain undici loop and pusher drains, interleaved`,
      );
      const comparison = await compareModes<ComparedDelivery>(
        ['plain undici loop', 'pusher'],
        (mode) =>
          mode === 'pusher'
            ? drainWithPusher(options, topic, url)
            : rawUndici(url, options.events, options.concurrency, HTTPS_PAYLOAD_BYTES),
        options.rounds ?? PUSH_ROUNDS,
        progress,
        options.warmUp,
      );
      return { ...comparison, events: options.events, payloadBytes: HTTPS_PAYLOAD_BYTES };
    });
  } finally {
    await removeBenchTopics(options.connection.kafka, [topic]);
  }
}

async function pushFromBacklog(
  options: BenchOptions,
  topic: string,
  url: string,
  progress: (line: string) => void,
): Promise<BenchResult> {
  progress(`producing a backlog of ${options.events} events to ${topic}`);
  await produceBacklog(options, topic);

  progress(
    `plain undici loop (${options.events} POSTs, ${options.concurrency} at a time) and pusher drains (concurrency ${options.concurrency}, no rate limit), interleaved`,
  );
  const rate = await compareModes<ComparedDelivery>(
    ['plain undici loop', 'pusher'],
    (mode) =>
      mode === 'pusher'
        ? drainWithPusher(options, topic, url)
        : rawUndici(url, options.events, options.concurrency),
    options.rounds ?? PUSH_ROUNDS,
    progress,
    options.warmUp,
  );
  progress('a consume → POST → commit loop (kafkajs, undici) and pusher drains, interleaved');
  const loop = await compareModes<ComparedConsumer>(
    ['consume-and-POST loop', 'pusher'],
    (mode) =>
      mode === 'pusher' ? drainWithPusher(options, topic, url) : consumeAndPostLoop(options, topic, url),
    options.rounds ?? PUSH_ROUNDS,
    progress,
    options.warmUp,
  );
  const tracing = options.tracing ? await tracingComparison(options, topic, url, progress) : undefined;
  const ordering =
    options.orderingRounds === undefined
      ? undefined
      : await compareModes<ComparedOrdering>(
          ['key', 'strict'],
          (ordering) => drainWithPusher(options, topic, url, undefined, { ordering }),
          options.orderingRounds,
          progress,
          options.warmUp,
        );
  const maxEvents = options.batchEvents ?? 100;
  const batch =
    options.batchRounds === undefined
      ? undefined
      : {
          maxEvents,
          ...(await compareModes<ComparedBatching>(
            ['unbatched', 'batched'],
            (mode) =>
              drainWithPusher(
                options,
                topic,
                url,
                undefined,
                mode === 'batched'
                  ? { batch: { maxEvents, maxBytes: 1024 * 1024, maxWaitMs: 100, groupBy: 'tenant' } }
                  : {},
              ),
            options.batchRounds,
            progress,
            options.warmUp,
          )),
        };
  return {
    events: options.events,
    concurrency: options.concurrency,
    partitions: options.partitions,
    rawUndiciPerSecond: rate.baselinePerSecond,
    pusherPerSecond: rate.comparedPerSecond,
    ratio: rate.ratio,
    rate,
    loop,
    ...(tracing ? { tracing } : {}),
    ...(ordering ? { ordering } : {}),
    ...(batch ? { batch } : {}),
    endpointDelayMs: options.endpointDelayMs ?? 0,
  };
}

/** Runs `work` with a no-op endpoint in a process of its own (answering after `delayMs`). */
export async function withNoopEndpoint<T>(delayMs: number, work: (url: string) => Promise<T>): Promise<T> {
  const endpoint = spawn(process.execPath, ['-e', NOOP_ENDPOINT, String(delayMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [chunk] = (await once(endpoint.stdout, 'data')) as [Buffer];
    return await work(`http://127.0.0.1:${Number(chunk.toString().trim())}/hooks`);
  } finally {
    stop(endpoint);
  }
}

/**
 * Writes `options.events` benchmark events to a new topic; `payloadBytes` > 0 gives each a payload
 * of that size (and writes fewer per request: a partition's batch must stay under the broker's 1 MB).
 */
export async function produceBacklog(options: BenchOptions, topic: string, payloadBytes = 0): Promise<void> {
  const kafka = createKafka({ ...options.connection.kafka, clientId: 'hookstream-bench', quiet: true });
  const admin = kafka.admin();
  const producer = createRawProducer(kafka);
  await Promise.all([admin.connect(), producer.connect()]);
  try {
    await admin.ensureTopics([
      { topic, partitions: options.partitions, replicationFactor: 1, config: { 'retention.ms': '3600000' } },
    ]);
    const codec = await BenchEventCodec.forTopic(options.connection.registry, topic, payloadBytes);
    const time = new Date().toISOString();
    const perSend = payloadBytes > 0 ? 48 : 1000;
    for (let i = 0; i < options.events; i += perSend) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(perSend, options.events - i) }, (_, j) =>
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

/**
 * The ceiling: POSTs of a body like the pusher's (with a `payload` of `payloadBytes` when > 0, as
 * the pusher's body of such an event), as fast as undici goes at that concurrency. An https URL
 * is trusted as the pusher trusts it: Node's CA store.
 */
export async function rawUndici(
  url: string,
  count: number,
  concurrency: number,
  payloadBytes = 0,
): Promise<DrainMeasure> {
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
    ...(payloadBytes > 0 ? { payload: benchPayload(payloadBytes) } : {}),
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
  const window = cpuWindow();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const measured = window.end();
  await pool.close();
  return { deliveries: count, ...measured, inFlight: concurrency };
}

/**
 * Drains a backlog again with new subscribers (the main one, or a smaller one of its own),
 * alternating tracing at 100 % sampling with tracing off, after a warm-up drain of each.
 */
async function tracingComparison(
  options: BenchOptions,
  mainTopic: string,
  url: string,
  progress: (line: string) => void,
): Promise<TracingComparison> {
  const events = options.tracingEvents ?? options.events;
  let topic = mainTopic;
  if (events !== options.events) {
    topic = `${mainTopic}.tracing`;
    progress(`producing a backlog of ${events} events to ${topic} for the tracing comparison`);
    await produceBacklog({ ...options, events }, topic);
  }
  const drain: Drain = (flush) => drainWithPusher({ ...options, events }, topic, url, flush);
  return compareTracing(drain, events, options.tracingRounds ?? TRACING_ROUNDS, progress, {
    warmUpDrains: options.warmUp,
    sampleRatio: options.tracingSampleRatio ?? 1,
  });
}

/**
 * Drains the whole backlog with a new subscriber; times and CPU from the moment the group is
 * positioned until the last delivery (and `flush`, when given), minus what was delivered before.
 */
export async function drainWithPusher(
  options: BenchOptions,
  topic: string,
  url: string,
  flush?: () => Promise<void>,
  variant: Pick<Partial<SubscriberDefinition>, 'ordering' | 'batch'> = {},
): Promise<DrainMeasure> {
  const name = `bench-${randomBytes(3).toString('hex')}`;
  const pusher = new Pusher(
    {
      definition: {
        name,
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
        ...variant,
      },
      signingKey: randomBytes(32),
    },
    {
      ...options.connection,
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
    // A backlog of a few events can be all delivered while start() returns, leaving nothing to
    // divide by after it: then the figure is of the whole drain, the group's join included.
    const whole = cpuWindow();
    await pusher.start();
    const profiled = await startWindowProfile(`push-drain${flush ? '-traced' : ''}`);
    const window = cpuWindow();
    const before = pusher.counts.acknowledged;
    while (pusher.counts.acknowledged < options.events) await sleep(5);
    await flush?.();
    const measured = window.end();
    const all = whole.end();
    await profiled();
    const inFlight = options.concurrency;
    if (before >= options.events) return { deliveries: options.events, ...all, inFlight };
    return { deliveries: options.events - before, ...measured, inFlight };
  } finally {
    await pusher.stop();
    await removeBenchSubscribers(options.connection.kafka, [name]);
  }
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null) child.kill('SIGTERM');
}
