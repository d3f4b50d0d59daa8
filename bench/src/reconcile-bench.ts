import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  type ConnectionSettings,
  dlqTopicName,
  HS_HEADER,
  retryTopicName,
  SubscriberDefinition,
  type SubscriberRecord,
  subscriberGroupId,
} from '@hookstream/contracts';
import { createKafka, createRawProducer, type KafkaAdmin, type RawMessage } from '@hookstream/kafka';
import { SubscriberCatalog } from '@hookstream/subscribers';
import { connectionEnv } from './child-env.ts';
import { kibValue } from './payload.ts';
import { residentMemory } from './proc-usage.ts';

export interface ReconcileBenchOptions {
  readonly connection: ConnectionSettings;
  /** Events in the window (1,000,000 for the report's figure). */
  readonly events: number;
  readonly partitions: number;
  /** `services/cli/bin/hookstream.js`, run as a child so its own time and memory are measured. */
  readonly hookstreamBin: string;
  readonly report: (line: string) => void;
}

export interface ReconcileBenchResult {
  readonly events: number;
  readonly partitions: number;
  readonly valueBytes: number;
  readonly produceSeconds: number;
  /** Wall time of `hookstream reconcile`, spawn to exit. */
  readonly reconcileSeconds: number;
  /** Its peak resident memory (VmHWM, read every 100 ms while it ran). */
  readonly peakRssMiB: number;
  readonly exitCode: number | null;
  /** What it found per subscriber (the scene set: delivered, retrying, pending, dead-lettered). */
  readonly counts: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Failure copies it indexed per subscriber. */
  readonly indexed: Readonly<Record<string, number>>;
}

const BATCH = 2000;
const LOOPS = 4;
/** Scene: sub b has this many events waiting in its tier 1; sub c this many dead letters and 1% pending. */
const TIER_COPIES = 10_000;
const DEAD_LETTERS = 1_000;

/**
 * `hookstream bench reconcile`: a window of `events` 1 KiB events (the ingress's CloudEvents
 * headers) on a topic of its own, three required subscribers in the catalog whose ledgers and
 * failure topics are set directly (no pusher runs): billing at the end, audit at the end with
 * 10,000 records waiting in its tier 1, entitlements (key.revoked only) 1% behind with 1,000
 * dead letters. Then runs `hookstream reconcile` over the window as a child process and measures
 * its wall time and peak RSS. Everything it created is deleted afterwards.
 */
export async function runReconcileBench(options: ReconcileBenchOptions): Promise<ReconcileBenchResult> {
  const { connection, events, partitions, report } = options;
  const kafka = createKafka({ ...connection.kafka, clientId: 'hookstream-bench-reconcile', quiet: true });
  const admin = kafka.admin();
  const run = randomUUID().slice(0, 8);
  const topic = `bench-reconcile-${run}`;
  const names = {
    billing: `bench-rec-${run}-billing`,
    audit: `bench-rec-${run}-audit`,
    entitlements: `bench-rec-${run}-entitlements`,
  };
  const catalog = new SubscriberCatalog(kafka);
  const ownTopics = [topic, retryTopicName(names.audit, 1), dlqTopicName(names.entitlements)];
  await admin.connect();
  try {
    await admin.ensureTopics(
      ownTopics.map((t) => ({ topic: t, partitions: t === topic ? partitions : 1, replicationFactor: 1 })),
    );
    const now = new Date().toISOString();
    const record = (definition: object): SubscriberRecord => ({
      version: 3,
      definition: SubscriberDefinition.parse(definition),
      state: { kind: 'active' },
      createdAt: now,
      updatedAt: now,
    });
    const base = {
      url: 'https://bench.invalid/hooks',
      required: true,
      requiredFrom: '2026-01-01T00:00:00Z',
      start: 'earliest',
    };
    await catalog.write([
      record({ ...base, name: names.billing }),
      record({ ...base, name: names.audit }),
      record({ ...base, name: names.entitlements, eventTypes: ['key.revoked'] }),
    ]);

    const fromMs = Date.now() - 1000;
    report(`producing ${events} events to ${topic} (${partitions} partitions)`);
    const produceStarted = performance.now();
    await produceEvents(kafka, topic, events, run);
    const produceSeconds = (performance.now() - produceStarted) / 1000;
    report(`produced in ${produceSeconds.toFixed(1)} s`);
    const toMs = Date.now() + 1000;

    await setScene(admin, kafka, topic, names);
    report('running hookstream reconcile');
    const measured = await measureReconcile(options, [
      'reconcile',
      '--from',
      new Date(fromMs).toISOString(),
      '--to',
      new Date(toMs).toISOString(),
      '--topic',
      topic,
      ...Object.values(names).flatMap((n) => ['--subscriber', n]),
      '--json',
    ]);
    const parsed = JSON.parse(measured.stdout) as {
      subscribers: { subscriber: string; counts: Record<string, number> }[];
      evidence: { subscriber: string; copies: number }[];
    };
    return {
      events,
      partitions,
      valueBytes: 1024,
      produceSeconds: round(produceSeconds),
      reconcileSeconds: round(measured.seconds),
      peakRssMiB: measured.peakMiB,
      exitCode: measured.code,
      counts: Object.fromEntries(parsed.subscribers.map((s) => [s.subscriber, s.counts])),
      indexed: Object.fromEntries(parsed.evidence.map((e) => [e.subscriber, e.copies])),
    };
  } finally {
    await catalog.tombstone(Object.values(names)).catch(() => undefined);
    await admin.deleteGroups(Object.values(names).map(subscriberGroupId)).catch(() => undefined);
    await admin.deleteTopics(ownTopics).catch(() => undefined);
    await admin.disconnect();
  }
}

async function produceEvents(
  kafka: ReturnType<typeof createKafka>,
  topic: string,
  events: number,
  run: string,
): Promise<void> {
  const producer = createRawProducer(kafka);
  await producer.connect();
  const value = kibValue();
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: LOOPS }, async () => {
        while (next < events) {
          const first = next;
          const n = Math.min(BATCH, events - first);
          next += n;
          const messages: RawMessage[] = Array.from({ length: n }, (_, k) => {
            const i = first + k;
            return {
              key: `tenant-${i % 1000}`,
              value,
              headers: {
                ce_id: `evt-${run}-${i}`,
                ce_type: i % 2 === 0 ? 'shipment.updated' : 'key.revoked',
                ce_source: '/ingress',
                ce_time: new Date().toISOString(),
                ce_specversion: '1.0',
                'content-type': 'application/avro',
              },
            };
          });
          await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages }] });
        }
      }),
    );
  } finally {
    await producer.disconnect();
  }
}

/** Ledgers and failure copies as a pusher would have left them (origin headers name events of the window). */
async function setScene(
  admin: KafkaAdmin,
  kafka: ReturnType<typeof createKafka>,
  topic: string,
  names: { billing: string; audit: string; entitlements: string },
): Promise<void> {
  const ends = (await admin.topicOffsets(topic)) ?? [];
  const at = (share: number) =>
    ends.map((p) => ({ partition: p.partition, offset: String(Math.floor(Number(p.high) * share)) }));
  await admin.commitOffsets(subscriberGroupId(names.billing), topic, at(1));
  await admin.commitOffsets(subscriberGroupId(names.audit), topic, at(1));
  await admin.commitOffsets(subscriberGroupId(names.entitlements), topic, at(0.99));
  const origin = (i: number) => {
    const p = ends[i % ends.length];
    return { partition: p?.partition ?? 0, offset: Math.floor(i / ends.length) };
  };
  const copy = (name: string, i: number, extra: Record<string, string>): RawMessage => {
    const o = origin(i);
    return {
      key: `tenant-${i % 1000}`,
      value: null,
      headers: {
        [HS_HEADER.eventId]: `copy-${i}`,
        [HS_HEADER.subscriber]: name,
        [HS_HEADER.attempts]: '1',
        [HS_HEADER.originTopic]: topic,
        [HS_HEADER.originPartition]: String(o.partition),
        [HS_HEADER.originOffset]: String(o.offset),
        [HS_HEADER.sourceTopic]: topic,
        [HS_HEADER.sourcePartition]: String(o.partition),
        [HS_HEADER.sourceOffset]: String(o.offset),
        [HS_HEADER.policyVersion]: 'bench',
        ...extra,
      },
    };
  };
  const producer = createRawProducer(kafka);
  await producer.connect();
  try {
    const due = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < TIER_COPIES; i += BATCH) {
      const messages = Array.from({ length: Math.min(BATCH, TIER_COPIES - i) }, (_, k) =>
        copy(names.audit, i + k, { [HS_HEADER.dueAt]: due }),
      );
      await producer.sendBatch({ topicMessages: [{ topic: retryTopicName(names.audit, 1), messages }] });
    }
    // Spread over the partitions below its ledger; those of key.revoked events (about half) are owed.
    const dead = Array.from({ length: DEAD_LETTERS }, (_, k) =>
      copy(names.entitlements, k, {
        [HS_HEADER.deadLetterReason]: 'terminal',
        [HS_HEADER.deadLetteredAt]: new Date().toISOString(),
        [HS_HEADER.status]: '422',
      }),
    );
    await producer.sendBatch({
      topicMessages: [{ topic: dlqTopicName(names.entitlements), messages: dead }],
    });
  } finally {
    await producer.disconnect();
  }
}

async function measureReconcile(
  options: ReconcileBenchOptions,
  args: readonly string[],
): Promise<{ seconds: number; peakMiB: number; code: number | null; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [options.hookstreamBin, ...args], {
    env: { ...process.env, ...connectionEnv(options.connection) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (line.trim() !== '') options.report(`reconcile: ${line}`);
  });
  let peakMiB = 0;
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    residentMemory(child.pid).then(
      (m) => {
        peakMiB = Math.max(peakMiB, m.peakMiB);
      },
      () => undefined,
    );
  }, 100);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  clearInterval(poll);
  return { seconds: (performance.now() - started) / 1000, peakMiB, code, stdout };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
