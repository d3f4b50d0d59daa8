import {
  ATTEMPT_LOG_TOPIC,
  dlqTopicName,
  HS_HEADER,
  replayLogTopicName,
  retryTopicName,
} from '@hookstream/contracts';
import { createKafka, RecordSender, readTopic } from '@hookstream/kafka';
import { REPLAY_LEASE_KEY } from '@hookstream/replay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { deadLetterRecord, randomTraceparent } from '../support/dead-letters.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic, endOffsetTotal } from '../support/topic.ts';
import { TRACING_BACKEND_WAIT_MS, tracingBackend } from '../support/tracing-backend.ts';
import { waitFor } from '../support/wait.ts';

// Reads traces: waits for Jaeger, which may still be building on a fresh machine.
beforeAll(tracingBackend, TRACING_BACKEND_WAIT_MS);

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-dlq-replay', quiet: true });
const sender = new RecordSender(kafka);
const subscriber = uniqueName('rp');
const dlq = dlqTopicName(subscriber);
const tier1 = retryTopicName(subscriber, 1);
const eventsTopic = uniqueName('events-rp');
const ids = { a: uniqueName('evt-a'), b: uniqueName('evt-b'), c: uniqueName('evt-c') };
const traces = {
  a: randomTraceparent(),
  b: randomTraceparent(),
  c: randomTraceparent(),
  d: randomTraceparent(),
};
const values = {
  a: Buffer.from([0, 0, 0, 0, 7, 1, 2, 3, 250]),
  b: Buffer.from([0, 0, 0, 0, 7, 9, 9]),
  c: Buffer.from([0, 0, 0, 0, 7, 4]),
  d: Buffer.from([0xde, 0xad]),
};
const env = { ...process.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoints.otlpTraces };
let sharedEventsBefore = 0;
let dlqRecords: Awaited<ReturnType<typeof readTopic>> = [];

function cli(...args: string[]) {
  return runCli(args, env);
}

async function json<T>(...args: string[]): Promise<T> {
  const run = await cli(...args, '--json');
  expect(run.stderr).not.toMatch(/hookstream/);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

interface Summary {
  replayId: string;
  selected: number;
  replayed: { eventId: string; dlq: string; detail: string }[];
  alreadyReplayed: { eventId: string; detail: string }[];
  unreplayable: { eventId: string | null; detail: string }[];
}

beforeAll(async () => {
  const admin = kafka.admin();
  await admin.connect();
  sharedEventsBefore = (await admin.listTopics()).includes('events') ? await endOffsetTotal('events') : 0;
  await admin.disconnect();
  await createTopic(eventsTopic, 3);
  await createTopic(dlq, 2);
  await createTopic(tier1, 2);
  await sender.connect();
  const origin = (offset: string) => ({ topic: eventsTopic, partition: 1, offset });
  await sender.send(dlq, [
    deadLetterRecord({
      eventId: ids.a,
      subscriber,
      reason: 'terminal',
      status: 404,
      attempts: 1,
      origin: origin('10'),
      deadLetteredAt: '2026-05-01T10:00:00.000Z',
      traceparent: traces.a.traceparent,
      key: 'shp_a',
      value: values.a,
    }),
    deadLetterRecord({
      eventId: ids.b,
      subscriber,
      reason: 'exhausted',
      status: 503,
      attempts: 5,
      origin: origin('11'),
      deadLetteredAt: '2026-05-01T11:00:00.000Z',
      traceparent: traces.b.traceparent,
      key: 'shp_b',
      value: values.b,
    }),
    deadLetterRecord({
      eventId: ids.c,
      subscriber,
      reason: 'expired',
      attempts: 2,
      origin: origin('12'),
      deadLetteredAt: '2026-05-01T12:00:00.000Z',
      traceparent: traces.c.traceparent,
      key: 'shp_c',
      value: values.c,
    }),
    deadLetterRecord({
      eventId: null,
      subscriber,
      reason: 'poison',
      attempts: 0,
      origin: origin('13'),
      deadLetteredAt: '2026-05-01T13:00:00.000Z',
      traceparent: traces.d.traceparent,
      key: 'shp_d',
      value: values.d,
    }),
  ]);
  dlqRecords = await readTopic(kafka, { topic: dlq });
});

afterAll(async () => {
  await sender.disconnect();
});

/** Records in tier 1 a subscriber reads: replays write in transactions, whose markers take offsets too. */
const tierRecords = async () => (await readTopic(kafka, { topic: tier1 })).length;

const dlqLocation = (eventId: string) => {
  const r = dlqRecords.find((x) => x.headers.ce_id === eventId);
  return `${dlq}:${r?.partition}:${r?.offset}`;
};

describe('hookstream dlq list', () => {
  it('lists every dead letter with its evidence, oldest first', async () => {
    const out = await json<{ count: number; deadLetters: Record<string, unknown>[] }>(
      'dlq',
      'list',
      '--subscriber',
      subscriber,
    );
    expect(out.count).toBe(4);
    expect(out.deadLetters.map((d) => [d.eventId, d.reason, d.attempts, d.status])).toEqual([
      [ids.a, 'terminal', 1, 404],
      [ids.b, 'exhausted', 5, 503],
      [ids.c, 'expired', 2, null],
      [null, 'poison', 0, null],
    ]);
    expect(out.deadLetters[0]).toMatchObject({
      type: 'shipment.updated',
      origin: { topic: eventsTopic, partition: 1, offset: '10' },
      dlq: { topic: dlq },
    });
  });

  it('prints a table for people and filters by reason, status, time, id and limit', async () => {
    const table = await cli('dlq', 'list', '--subscriber', subscriber);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/event id\s+type\s+reason\s+attempts\s+status\s+age\s+dlq/);
    expect(table.stdout).toContain(ids.b);
    const idsOf = async (...filters: string[]) =>
      (
        await json<{ deadLetters: { eventId: string | null }[] }>(
          'dlq',
          'list',
          '--subscriber',
          subscriber,
          ...filters,
        )
      ).deadLetters.map((d) => d.eventId);
    expect(await idsOf('--reason', 'terminal')).toEqual([ids.a]);
    expect(await idsOf('--status', '5xx', '--status', '404')).toEqual([ids.a, ids.b]);
    expect(await idsOf('--status', 'none', '--reason', 'expired')).toEqual([ids.c]);
    expect(await idsOf('--since', '2026-05-01T10:30:00Z', '--until', '2026-05-01T12:30:00Z')).toEqual([
      ids.b,
      ids.c,
    ]);
    expect(await idsOf('--event-id', ids.c)).toEqual([ids.c]);
    expect(await idsOf('--limit', '2')).toEqual([ids.a, ids.b]);
  });

  it('refuses bad input with exit 2 naming the option', async () => {
    for (const [args, option] of [
      [['dlq', 'list', '--subscriber', subscriber, '--limit', '0'], '--limit'],
      [['dlq', 'list', '--subscriber', subscriber, '--reason', 'bored'], '--reason'],
      [['dlq', 'list', '--subscriber', subscriber, '--since', 'yesterday'], '--since'],
      [['dlq', 'replay', '--subscriber', subscriber, '--rate', 'fast'], '--rate'],
      [['dlq', 'list', '--subscriber', 'Not Valid'], '--subscriber'],
      [['dlq', 'replay'], '--subscriber'],
    ] as const) {
      const run = await cli(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(option);
    }
    const missing = await cli('dlq', 'list', '--subscriber', uniqueName('nobody'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NO_DLQ');
  });
});

describe('hookstream dlq replay', () => {
  it('--dry-run lists what would go and writes nothing', async () => {
    const out = await json<Summary>('dlq', 'replay', '--subscriber', subscriber, '--dry-run');
    expect(out.replayed.map((r) => r.eventId)).toEqual([ids.a, ids.b, ids.c]);
    expect(out.unreplayable).toEqual([
      expect.objectContaining({ eventId: null, detail: expect.stringMatching(/no event id/) }),
    ]);
    expect(await endOffsetTotal(tier1)).toBe(0);
    const admin = kafka.admin();
    await admin.connect();
    expect(await admin.listTopics()).not.toContain(replayLogTopicName(subscriber));
    await admin.disconnect();
    const table = await cli('dlq', 'replay', '--subscriber', subscriber, '--dry-run');
    expect(table.stdout).toContain('would replay 3');
    expect(table.stdout).toContain('nothing written');
  });

  it('writes the selected records to tier 1 with the replay headers, once; --again writes them again', async () => {
    const first = await json<Summary>(
      'dlq',
      'replay',
      '--subscriber',
      subscriber,
      '--event-id',
      ids.a,
      '--event-id',
      ids.b,
      '--operator',
      'ops-alice',
    );
    expect(first.selected).toBe(2);
    expect(first.replayed.map((r) => r.eventId)).toEqual([ids.a, ids.b]);
    expect(await tierRecords()).toBe(2);

    const tier = await readTopic(kafka, { topic: tier1 });
    expect(tier).toHaveLength(2);
    const a = tier.find((r) => r.headers[HS_HEADER.eventId] === ids.a);
    const dlqA = dlqRecords.find((r) => r.headers.ce_id === ids.a);
    expect(a?.key).toBe('shp_a');
    expect(a?.value?.equals(values.a)).toBe(true);
    const h = HS_HEADER;
    expect(a?.headers).toMatchObject({
      ce_id: ids.a,
      ce_type: 'shipment.updated',
      ce_source: '/ingress',
      ce_time: '2026-05-01T09:59:00.000Z',
      ce_specversion: '1.0',
      'content-type': 'application/avro',
      [h.eventId]: ids.a,
      [h.subscriber]: subscriber,
      [h.attempts]: '0',
      [h.originTopic]: eventsTopic,
      [h.originPartition]: '1',
      [h.originOffset]: '10',
      [h.sourceTopic]: dlq,
      [h.sourcePartition]: String(dlqA?.partition),
      [h.sourceOffset]: dlqA?.offset,
      [h.replayOf]: dlqLocation(ids.a),
      [h.replayId]: first.replayId,
      [h.replayedBy]: 'ops-alice',
      [h.replays]: '1',
    });
    // No DLQ evidence travels on; due now (it was written during this test).
    expect(a?.headers[h.deadLetterReason]).toBeUndefined();
    expect(Math.abs(Date.parse(a?.headers[h.dueAt] ?? '') - Date.now())).toBeLessThan(60_000);
    // The replay joins the event's trace: same trace id, a new span (the replay's PRODUCER span).
    const [, traceId, spanId] = (a?.headers.traceparent ?? '').split('-');
    expect(traceId).toBe(traces.a.traceId);
    expect(spanId).not.toBe(traces.a.traceparent.split('-')[2]);

    const second = await json<Summary>(
      'dlq',
      'replay',
      '--subscriber',
      subscriber,
      '--event-id',
      ids.a,
      '--event-id',
      ids.b,
    );
    expect(second.replayed).toEqual([]);
    expect(second.alreadyReplayed.map((r) => r.eventId)).toEqual([ids.a, ids.b]);
    // Who replayed it, from the replay log.
    expect(second.alreadyReplayed[0]?.detail).toMatch(/ by ops-alice \(/);
    expect(await tierRecords()).toBe(2);
    const text = await cli('dlq', 'replay', '--subscriber', subscriber, '--event-id', ids.a);
    expect(text.stdout).toMatch(/replayed 0 .*skipped 1 already replayed \(--again to force\)/);

    const againRun = await cli(
      'dlq',
      'replay',
      '--subscriber',
      subscriber,
      '--event-id',
      ids.b,
      '--again',
      '--json',
    );
    expect(againRun.code).toBe(0);
    // stderr is a pipe here: plain progress lines, no \r redraws; stdout stays the JSON summary.
    expect(againRun.stderr).toContain('replayed 1/1 (100%)\n');
    expect(againRun.stderr).not.toContain('\r');
    const again = JSON.parse(againRun.stdout) as Summary;
    expect(again.replayed.map((r) => r.eventId)).toEqual([ids.b]);
    expect(await tierRecords()).toBe(3);
  });

  it('replays the rest without repeating the earlier ones, skips the unreplayable, paced by --rate', async () => {
    const started = Date.now();
    const rest = await json<Summary>('dlq', 'replay', '--subscriber', subscriber, '--rate', '20');
    expect(Date.now() - started).toBeGreaterThan(0);
    expect(rest.selected).toBe(4);
    expect(rest.replayed.map((r) => r.eventId)).toEqual([ids.c]);
    expect(rest.alreadyReplayed.map((r) => r.eventId)).toEqual([ids.a, ids.b]);
    expect(rest.unreplayable).toHaveLength(1);
    expect(await tierRecords()).toBe(4);
  });

  it('never writes to an events topic, and keeps its replay log compacted with explicit retention', async () => {
    expect(await endOffsetTotal(eventsTopic)).toBe(0);
    expect((await endOffsetTotal('events').catch(() => 0)) - sharedEventsBefore).toBe(0);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const config = await admin.topicConfig(replayLogTopicName(subscriber));
      expect(config).toMatchObject({
        'cleanup.policy': 'compact,delete',
        'retention.ms': String(90 * 86_400_000),
      });
    } finally {
      await admin.disconnect();
    }
    const log = await readTopic(kafka, { topic: replayLogTopicName(subscriber) });
    // a, b, b again, c: one entry per replayed record, keyed by its DLQ location; each run's
    // lease was taken, refreshed with its chunk and given back.
    expect(log.filter((r) => r.key === REPLAY_LEASE_KEY).at(-1)?.value).toBeNull();
    expect(log.filter((r) => r.key !== REPLAY_LEASE_KEY).map((r) => r.key)).toEqual([
      dlqLocation(ids.a),
      dlqLocation(ids.b),
      dlqLocation(ids.b),
      dlqLocation(ids.c),
    ]);
  });

  it('records the replay in the attempt log, so the ledger shows the event waiting in tier 1', async () => {
    const admin = kafka.admin();
    await admin.connect();
    const hasLog = (await admin.listTopics()).includes(ATTEMPT_LOG_TOPIC);
    await admin.disconnect();
    // The pusher creates the attempt log; replay only writes to it when it exists.
    if (!hasLog) await ensureAttemptLog();
    await json<Summary>('dlq', 'replay', '--subscriber', subscriber, '--event-id', ids.c, '--again');
    const out = await json<{
      subscribers: { subscriber: string; ledger: { state: string; tier?: number; replayed?: boolean } }[];
    }>('ledger', ids.c, '--subscriber', subscriber, '--topic', eventsTopic);
    expect(out.subscribers).toEqual([
      expect.objectContaining({
        subscriber,
        ledger: expect.objectContaining({ state: 'retrying', tier: 1, replayed: true }),
      }),
    ]);
  });

  it("exports each replayed record's PRODUCER span into the event's original trace", async () => {
    const trace = await waitFor('the replay span in Jaeger', async () => {
      const res = await fetch(`${endpoints.jaegerQuery}/api/traces/${traces.a.traceId}`);
      if (!res.ok) return undefined;
      const body = (await res.json()) as {
        data: {
          spans: {
            operationName: string;
            references: { refType: string; spanID: string }[];
            tags: { key: string; value: unknown }[];
            processID: string;
          }[];
          processes: Record<string, { serviceName: string }>;
        }[];
      };
      const t = body.data[0];
      const span = t?.spans.find((s) => s.operationName === `send ${tier1}`);
      return t && span ? { t, span } : undefined;
    });
    expect(trace.t.processes[trace.span.processID]?.serviceName).toBe('hookstream-replay');
    const tags = Object.fromEntries(trace.span.tags.map((t) => [t.key, t.value]));
    expect(tags).toMatchObject({
      'messaging.message.id': ids.a,
      'hookstream.subscriber': subscriber,
      'messaging.destination.name': tier1,
      'span.kind': 'producer',
    });
    const original = traces.a.traceparent.split('-')[2];
    // Parent and link are the same span; Jaeger's API folds them into one reference to it.
    expect(trace.span.references.map((r) => r.spanID)).toContain(original);
  });
});

async function ensureAttemptLog(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.ensureTopics([
      {
        topic: ATTEMPT_LOG_TOPIC,
        partitions: 6,
        replicationFactor: 1,
        config: { 'retention.ms': String(7 * 86_400_000), 'cleanup.policy': 'delete' },
      },
    ]);
  } finally {
    await admin.disconnect();
  }
}
