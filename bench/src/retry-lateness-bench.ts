import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ConnectionSettings,
  DEFAULT_BREAKER,
  dlqTopicName,
  HS_HEADER,
  type KafkaSettings,
  retryTopicName,
  subscriberGroupId,
} from '@hookstream/contracts';
import { createKafka, createRawConsumer } from '@hookstream/kafka';
import { deleteBenchGroups, removeBenchTopics } from './bench-topic.ts';
import { inProcessPusher, listenOnLoopback } from './in-process-pusher.ts';
import { produceBacklog } from './push-bench.ts';
import { quantile } from './stats.ts';

export interface RetryLatenessOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  readonly records: number;
  /** One tier per entry; every event fails once per tier before it is accepted. */
  readonly tiersMs: readonly number[];
  readonly jitter: number;
}

export interface TierLateness {
  readonly tier: number;
  readonly delayMs: number;
  readonly records: number;
  /** actual − due, ms: how late the attempt from this tier started. Negative would be early. */
  readonly minMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface RetryLatenessResult {
  readonly records: number;
  readonly jitter: number;
  /** Attempts the endpoint saw again (same event, same attempt number). */
  readonly redeliveries: number;
  readonly tiers: TierLateness[];
}

/**
 * How late retries start against their due time: `records` events each fail once per tier
 * (503) and are accepted on the last attempt. The endpoint notes when each attempt arrives;
 * the due times come from the tier records themselves.
 */
export async function benchRetryLateness(
  options: RetryLatenessOptions,
  progress: (line: string) => void,
): Promise<RetryLatenessResult> {
  const attemptsToAccept = options.tiersMs.length + 1;
  const arrivals = new Map<string, number[]>();
  let accepted = 0;
  let redeliveries = 0;
  const server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { event_id: string; attempt: number };
      const seen = arrivals.get(body.event_id) ?? [];
      const first = seen[body.attempt] === undefined;
      // The first arrival of each attempt counts; a redelivery must not end the wait early.
      if (first) seen[body.attempt] = at;
      else redeliveries++;
      arrivals.set(body.event_id, seen);
      const ok = body.attempt >= attemptsToAccept;
      if (ok && first) accepted++;
      res.writeHead(ok ? 204 : 503).end();
    });
  });
  const url = await listenOnLoopback(server);
  const topic = `hookstream.bench.${randomBytes(4).toString('hex')}`;
  const name = `lateness-${randomBytes(3).toString('hex')}`;
  progress(`producing ${options.records} events to ${topic}`);
  await produceBacklog({ ...options, events: options.records, concurrency: 1, partitions: 3 }, topic);
  await createOwnTopics(options.connection.kafka, name, options.tiersMs.length);
  const pusher = inProcessPusher({
    ...options,
    topic,
    definition: {
      name,
      url,
      rate: { perSecond: 100_000, burst: 0 },
      concurrency: 64,
      retry: {
        delaysMs: [...options.tiersMs],
        maxAttempts: attemptsToAccept,
        maxAgeMs: 3_600_000,
        jitter: options.jitter,
      },
      // Every first attempt fails on purpose: an open breaker would hold them in place, and
      // this measures the tiers' timing, not the breaker.
      breaker: { ...DEFAULT_BREAKER, enabled: false },
    },
  });
  try {
    await pusher.start();
    const deadline = Date.now() + 60_000 + options.tiersMs.reduce((a, b) => a + b, 0) * 3;
    let reported = -1;
    while (accepted < options.records) {
      if (Date.now() > deadline) throw new Error(`only ${accepted} of ${options.records} accepted in time`);
      if (accepted !== reported && accepted % 250 === 0) {
        progress(`${accepted}/${options.records} accepted on attempt ${attemptsToAccept}`);
        reported = accepted;
      }
      await sleep(50);
    }
  } finally {
    await pusher.stop();
    server.close();
  }
  progress('reading due times from the tier topics');
  const tiers: TierLateness[] = [];
  for (const [i, delayMs] of options.tiersMs.entries()) {
    const due = await readDueTimes(options.connection.kafka, retryTopicName(name, i + 1), options.records);
    const lateness: number[] = [];
    for (const [eventId, dueAt] of due) {
      const at = arrivals.get(eventId)?.[i + 2];
      if (at !== undefined) lateness.push(at - dueAt);
    }
    lateness.sort((a, b) => a - b);
    tiers.push({
      tier: i + 1,
      delayMs,
      records: lateness.length,
      minMs: lateness[0] ?? 0,
      p50Ms: quantile(lateness, 0.5),
      p90Ms: quantile(lateness, 0.9),
      p99Ms: quantile(lateness, 0.99),
      maxMs: lateness.at(-1) ?? 0,
    });
  }
  const own = [...options.tiersMs.map((_, i) => retryTopicName(name, i + 1)), dlqTopicName(name)];
  await removeBenchTopics(options.connection.kafka, [topic, ...own], [subscriberGroupId(name)]);
  return { records: options.records, jitter: options.jitter, redeliveries, tiers };
}

/**
 * The subscriber's tiers and DLQ, made before it starts (as its pusher would make them), so the
 * figure is how late retries start.
 */
async function createOwnTopics(kafka: KafkaSettings, name: string, tiers: number): Promise<void> {
  const admin = createKafka({ ...kafka, clientId: 'hookstream-bench', quiet: true }).admin();
  await admin.connect();
  try {
    const topics = [
      ...Array.from({ length: tiers }, (_, i) => retryTopicName(name, i + 1)),
      dlqTopicName(name),
    ];
    await admin.ensureTopics(topics.map((topic) => ({ topic, partitions: 3, replicationFactor: 1 })));
  } finally {
    await admin.disconnect();
  }
}

/** Event id → due time of every record in a tier topic (the first, if an event is there twice). */
async function readDueTimes(
  settings: KafkaSettings,
  topic: string,
  count: number,
): Promise<Map<string, number>> {
  const kafka = createKafka({ ...settings, clientId: 'hookstream-bench', quiet: true });
  const groupId = `hookstream.bench.reader.${randomBytes(4).toString('hex')}`;
  const consumer = createRawConsumer(kafka, { groupId });
  const due = new Map<string, number>();
  await consumer.connect();
  try {
    await consumer.subscribe([topic], { fromBeginning: true });
    await consumer.run(
      async ({ headers }) => {
        const id = headers[HS_HEADER.eventId];
        const at = headers[HS_HEADER.dueAt];
        if (id !== undefined && at !== undefined && !due.has(id)) due.set(id, Date.parse(at));
      },
      { autoCommit: false },
    );
    const deadline = Date.now() + 30_000;
    while (due.size < count && Date.now() < deadline) await sleep(50);
  } finally {
    await consumer.disconnect();
    await deleteBenchGroups(settings, [groupId]);
  }
  return due;
}
