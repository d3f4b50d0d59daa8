import { setTimeout as sleep } from 'node:timers/promises';
import { dlqTopicName, HS_HEADER, subscriberGroupId } from '@hookstream/contracts';
import type { ReconcileReport } from '@hookstream/dead-letter-tools';
import { type ConsumedRecord, createKafka, RecordSender, streamTopic } from '@hookstream/kafka';
import { reconcileInThread } from 'hookstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEnv, handMadeRecord, produceRegistryRecords } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';

// The parts of `hookstream reconcile` the seed scenario does not reach: the window read by
// timestamps, and what retention took (exit 3 naming the boundary; a `lost` range, exit 1).

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-reconcile', quiet: true });
const admin = kafka.admin();
const sender = new RecordSender(kafka);

beforeAll(async () => {
  await admin.connect();
  await sender.connect();
});
afterAll(async () => {
  await sender.disconnect();
  await admin.disconnect();
});

function events(n: number, tag: string, type = 'key.revoked') {
  return Array.from({ length: n }, (_, i) => ({
    key: `k${i}`,
    value: Buffer.from(`${tag}-${i}`),
    headers: { ce_id: `${tag}-${i}`, ce_type: type, ce_source: '/test' },
  }));
}

/** Retention's work, done now (the admin client must know the topic's partitions first). */
async function deleteBefore(topic: string, offset: number): Promise<void> {
  await admin.topicOffsets(topic);
  await admin.deleteRecordsBefore(topic, 0, offset);
}

async function readAll(topic: string): Promise<ConsumedRecord[]> {
  const out: ConsumedRecord[] = [];
  await streamTopic(kafka, { topic, from: 'earliest', purpose: 'test', onBatch: (r) => void out.push(...r) });
  return out;
}

/** Produces `first`, then `second` with Kafka timestamps strictly later; returns the time between. */
async function twoBatches(topic: string, first: number, second: number): Promise<number> {
  await sender.send(topic, events(first, 'a'));
  const lastA = Math.max(...(await readAll(topic)).map((r) => r.timestampMs));
  // Timestamps are milliseconds: the next record must be stamped after the last of the first batch.
  while (Date.now() <= lastA + 1) await sleep(2);
  await sender.send(topic, events(second, 'b'));
  return lastA + 1;
}

describe('streamTopic', () => {
  it('reads the window between two timestamps, batch by batch, the headers asked for and no value', async () => {
    const topic = uniqueName('stream');
    await createTopic(topic, 2);
    const between = await twoBatches(topic, 10, 7);
    const batches: ConsumedRecord[][] = [];
    let planned = 0;
    const streamed = await streamTopic(kafka, {
      topic,
      from: { timestampMs: between },
      to: { timestampMs: Date.now() + 60_000 },
      headers: ['ce_id'],
      withoutValues: true,
      purpose: 'test',
      onPlan: (partitions) => {
        planned = partitions.reduce((n, p) => n + Number(BigInt(p.end) - BigInt(p.start)), 0);
      },
      onBatch: (records) => void batches.push([...records]),
    });
    const read = batches.flat();
    expect(planned).toBe(7);
    expect(streamed.records).toBe(7);
    expect(read.map((r) => r.headers.ce_id).sort()).toEqual(
      events(7, 'b')
        .map((e) => e.headers.ce_id)
        .sort(),
    );
    expect(read.every((r) => r.value === null && r.headers.ce_type === undefined)).toBe(true);
    expect(streamed.partitions.every((p) => p.cut === null)).toBe(true);

    // Up to the first batch's end only.
    const early: ConsumedRecord[] = [];
    await streamTopic(kafka, {
      topic,
      from: 'earliest',
      to: { timestampMs: between },
      purpose: 'test',
      onBatch: (r) => void early.push(...r),
    });
    expect(early.map((r) => r.headers.ce_id).sort()).toEqual(
      events(10, 'a')
        .map((e) => e.headers.ce_id)
        .sort(),
    );
  });

  it('says where retention cut the partition, with the first record it still holds', async () => {
    const topic = uniqueName('stream-cut');
    await createTopic(topic, 1);
    await sender.send(topic, events(10, 'a'));
    await deleteBefore(topic, 4);
    const first = (await readAll(topic))[0];
    const streamed = await streamTopic(kafka, {
      topic,
      from: { timestampMs: 0 },
      purpose: 'test',
      onBatch: () => undefined,
    });
    expect(streamed.partitions[0]).toMatchObject({ low: '4', start: '4', end: '10' });
    expect(streamed.partitions[0]?.cut).toEqual({ firstKeptMs: first?.timestampMs });
  });
});

/** A required subscriber's catalog record, written by hand: no fleet runs it (the ledger is set by the test). */
async function writeRequired(name: string): Promise<void> {
  await produceRegistryRecords(kafka, [
    {
      key: name,
      value: handMadeRecord(
        {
          name,
          url: 'https://audit.invalid/',
          required: true,
          requiredFrom: '2026-01-01T00:00:00Z',
          start: 'earliest',
        },
        { version: 3 },
      ),
    },
  ]);
}

describe('hookstream reconcile and retention', () => {
  it('exits 3 naming the boundary when the window begins before what the events topic holds, and 1 with a lost range', async () => {
    const topic = uniqueName('reconcile-cut');
    await createTopic(topic, 1);
    const { env } = catalogEnv(topic);
    const name = uniqueName('reconcile-cut-audit');
    await writeRequired(name);
    const fromMs = Date.now() - 60_000;
    await sender.send(topic, events(10, 'a'));
    await admin.commitOffsets(subscriberGroupId(name), topic, [{ partition: 0, offset: '10' }]);
    await deleteBefore(topic, 4);
    const args = [
      'reconcile',
      '--from',
      new Date(fromMs).toISOString(),
      '--topic',
      topic,
      '--subscriber',
      name,
    ];

    const cut = await runCli([...args, '--json'], env);
    expect(cut.code, cut.stderr).toBe(3);
    const report = JSON.parse(cut.stdout) as ReconcileReport;
    expect(report.boundary).toMatchObject({ topic, partition: 0 });
    expect(report.subscribers[0]?.counts).toMatchObject({ delivered: 6, lost: 0 });
    const people = await runCli(args, env);
    expect(people.code).toBe(3);
    expect(people.stdout).toContain(
      `the window reaches past what retention still holds: ${topic} partition 0`,
    );

    // The pusher's record of that gap: one `lost` dead letter for offsets 0 to 3.
    const dlq = dlqTopicName(name);
    await createTopic(dlq, 1);
    await sender.send(dlq, [
      {
        key: `lost:${topic}:0:0`,
        value: null,
        headers: {
          [HS_HEADER.subscriber]: name,
          [HS_HEADER.deadLetterReason]: 'lost',
          [HS_HEADER.deadLetteredAt]: new Date().toISOString(),
          [HS_HEADER.policyVersion]: 'test',
          [HS_HEADER.originTopic]: topic,
          [HS_HEADER.originPartition]: '0',
          [HS_HEADER.originOffset]: '0',
          [HS_HEADER.lostFrom]: '0',
          [HS_HEADER.lostTo]: '3',
          [HS_HEADER.lostCount]: '4',
        },
      },
    ]);
    const lost = await runCli([...args, '--json'], env);
    expect(lost.code, lost.stderr).toBe(1);
    const withLost = JSON.parse(lost.stdout) as ReconcileReport;
    expect(withLost.subscribers[0]?.counts).toMatchObject({ delivered: 6, lost: 4 });
    expect(withLost.subscribers[0]?.listed.lost?.[0]?.location).toBe(`${topic}:0:0-3`);
    expect(withLost.boundary).toMatchObject({ topic, partition: 0 });
  });

  it("a subscriber's own topic that lost only records older than its retention does not cut the window; one whose retention reaches into it does", async () => {
    const topic = uniqueName('reconcile-own');
    await createTopic(topic, 1);
    const { env } = catalogEnv(topic);
    const name = uniqueName('reconcile-own-audit');
    await writeRequired(name);
    // A DLQ whose one old dead letter is gone and whose next came inside the window: sparse, not cut.
    const dlq = dlqTopicName(name);
    await createTopic(dlq, 1);
    await sender.send(dlq, [{ key: 'old', value: Buffer.from('x'), headers: {} }]);
    await deleteBefore(dlq, 1);
    const fromMs = Date.now() - 60_000;
    await sender.send(dlq, [{ key: 'new', value: Buffer.from('y'), headers: {} }]);
    await sender.send(topic, events(3, 'a'));
    await admin.commitOffsets(subscriberGroupId(name), topic, [{ partition: 0, offset: '3' }]);
    const args = [
      'reconcile',
      '--from',
      new Date(fromMs).toISOString(),
      '--topic',
      topic,
      '--subscriber',
      name,
      '--json',
    ];

    const whole = await runCli(args, env);
    expect(whole.code, whole.stderr).toBe(0);
    expect((JSON.parse(whole.stdout) as ReconcileReport).boundary).toBeNull();

    // With a retention shorter than the window, what the DLQ lost may have been in it.
    await admin.alterTopicConfig(dlq, { 'retention.ms': '1000' });
    const cut = await runCli(args, env);
    expect(cut.code, cut.stderr).toBe(3);
    expect((JSON.parse(cut.stdout) as ReconcileReport).boundary).toMatchObject({ topic: dlq, partition: 0 });
  });

  it('refuses a subscriber that is not required (exit 2) and a missing events topic (exit 1)', async () => {
    const topic = uniqueName('reconcile-plain');
    await createTopic(topic, 1);
    const { env } = catalogEnv(topic);
    const name = uniqueName('reconcile-plain-crm');
    await produceRegistryRecords(kafka, [
      { key: name, value: handMadeRecord({ name, url: 'https://crm.invalid/' }) },
    ]);
    const notRequired = await runCli(
      ['reconcile', '--from', '1h', '--topic', topic, '--subscriber', name],
      env,
    );
    expect(notRequired.code).toBe(2);
    expect(notRequired.stderr).toContain(`--subscriber: ${name} is not required`);
    const missing = await runCli(['reconcile', '--from', '1h', '--topic', uniqueName('no-such-topic')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('NO_EVENTS_TOPIC');
  });
});

describe('reconcileInThread', () => {
  it('reads again without the bound when the bounded heap runs out, and finds the same', async () => {
    const topic = uniqueName('reconcile-bound');
    await createTopic(topic, 2);
    const name = uniqueName('reconcile-bound-audit');
    await writeRequired(name);
    const fromMs = Date.now() - 60_000;
    await sender.send(topic, events(40, 'a'));
    await admin.commitOffsets(subscriberGroupId(name), topic, [
      { partition: 0, offset: '0' },
      { partition: 1, offset: '0' },
    ]);
    const query = { eventsTopic: topic, fromMs, toMs: Date.now() + 1000, subscribers: [name], sampleSize: 5 };
    const unbounded: string[] = [];
    const read = async (oldGenerationMb?: number) => {
      const report = await reconcileInThread(query, {
        onProgress: () => undefined,
        onUnbounded: () => unbounded.push(String(oldGenerationMb)),
        ...(oldGenerationMb === undefined ? {} : { oldGenerationMb }),
      });
      return { read: report.read, counts: report.subscribers.map((s) => s.counts) };
    };
    // 4 MiB cannot even hold the worker's modules: that read runs out and runs again unbounded.
    const rerun = await read(4);
    expect(unbounded).toEqual(['4']);
    const bounded = await read();
    expect(unbounded).toEqual(['4']);
    expect(bounded).toEqual({ read: 40, counts: [expect.objectContaining({ pending: 40 })] });
    expect(rerun).toEqual(bounded);
  });
});
