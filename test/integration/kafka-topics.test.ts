import { createKafka, createRawProducer } from '@hookstream/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

describe('ensureTopics', () => {
  const admin = createKafka({ brokers: endpoints.brokers, clientId: 'topics-test', quiet: true }).admin();
  afterAll(() => admin.disconnect());

  it('creates missing topics with their partitions and settings, and leaves existing ones alone', async () => {
    await admin.connect();
    const topic = uniqueName('topics-test');
    const spec = { topic, partitions: 4, replicationFactor: 1, config: { 'retention.ms': '86400000' } };
    expect(await admin.ensureTopics([spec])).toEqual([topic]);
    expect(await admin.ensureTopics([spec])).toEqual([]);

    expect(await admin.partitionCount(topic)).toBe(4);
    expect((await admin.topicConfig(topic))?.['retention.ms']).toBe('86400000');
  });

  it('tolerates concurrent callers racing to create the same topic', async () => {
    await admin.connect();
    const topic = uniqueName('topics-race');
    const spec = { topic, partitions: 1, replicationFactor: 1 };
    const other = createKafka({ brokers: endpoints.brokers, clientId: 'topics-test-2', quiet: true }).admin();
    await other.connect();
    try {
      await Promise.all([admin.ensureTopics([spec]), other.ensureTopics([spec])]);
    } finally {
      await other.disconnect();
    }
    expect(await admin.listTopics()).toContain(topic);
  });
});

describe('recordSamples and offsetsAt (what the retention headroom reads)', () => {
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'samples-test', quiet: true });
  const admin = kafka.admin();
  const producer = createRawProducer(kafka);
  afterAll(async () => {
    await producer.disconnect();
    await admin.disconnect();
  });

  it("reads the timestamp of the record at an offset and the records' mean size, joining no group", async () => {
    await admin.connect();
    await producer.connect();
    const topic = uniqueName('samples-test');
    const empty = uniqueName('samples-empty');
    await admin.ensureTopics([
      { topic, partitions: 1, replicationFactor: 1 },
      { topic: empty, partitions: 1, replicationFactor: 1 },
    ]);
    const sent: { before: number; after: number }[] = [];
    for (const i of [0, 1, 2]) {
      const before = Date.now();
      await producer.send({ topic, acks: -1, messages: [{ key: `k${i}`, value: Buffer.alloc(1000, i) }] });
      sent.push({ before, after: Date.now() });
      // Each record its own millisecond, so offsetsAt below has one answer.
      const last = sent.at(-1)?.after ?? 0;
      await waitFor('the next millisecond', async () => (Date.now() > last + 2 ? true : undefined), {
        intervalMs: 1,
      });
    }
    const [atOne] = await admin.recordSamples(topic, [{ partition: 0, offset: 1 }]);
    const one = sent[1] ?? { before: 0, after: 0 };
    expect(atOne?.timestampMs).toBeGreaterThanOrEqual(one.before);
    expect(atOne?.timestampMs).toBeLessThanOrEqual(one.after);
    // Key (2 bytes), value (1000) and some framing, not a whole batch per record.
    expect(atOne?.bytesPerRecord).toBeGreaterThan(1000);
    expect(atOne?.bytesPerRecord).toBeLessThan(1100);
    expect(await admin.recordSamples(empty, [{ partition: 0, offset: 0 }])).toEqual([
      { partition: 0, offset: 0, timestampMs: null, bytesPerRecord: null },
    ]);

    expect(await admin.offsetsAt(topic, (atOne?.timestampMs ?? 0) + 1)).toEqual([
      { partition: 0, offset: '2' },
    ]);
    expect(await admin.offsetsAt(topic, Date.now() + 60_000)).toEqual([{ partition: 0, offset: '3' }]);
  });
});
