import { createKafka, createRawProducer } from '@hookstream/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/** One connection for the file; each test connects it first (connect is idempotent). */
const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'topics-test', quiet: true });
const admin = kafka.admin();
const producer = createRawProducer(kafka);
afterAll(async () => {
  await producer.disconnect();
  await admin.disconnect();
});

describe('ensureTopics', () => {
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

describe("groupLedger (a join's ledger read) and groupLag", () => {
  it('answers in one round what the per-topic reads answer, commit metadata included, and counts lag from the log start where nothing is committed', async () => {
    await admin.connect();
    await producer.connect();
    const [events, tier] = [uniqueName('ledger-events'), uniqueName('ledger-tier')];
    await admin.ensureTopics([
      { topic: events, partitions: 3, replicationFactor: 1 },
      { topic: tier, partitions: 1, replicationFactor: 1 },
    ]);
    const messages = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'x' }));
    await producer.send({ topic: events, acks: -1, messages: messages(30) });
    await producer.send({ topic: tier, acks: -1, messages: messages(4) });
    const group = uniqueName('ledger-group');
    const rewind = { untilOffset: 7, atMs: 1_700_000_000_000, by: 'ops' };
    await admin.commitOffsets(group, events, [{ partition: 1, offset: '2', rewind }]);

    const ledger = await admin.groupLedger(group, [events, tier]);
    for (const topic of [events, tier])
      expect(ledger.get(topic)).toEqual({
        committed: await admin.committedOffsets(group, topic),
        ranges: await admin.topicOffsets(topic),
      });
    expect(ledger.get(events)?.committed.find((c) => c.partition === 1)).toMatchObject({
      offset: '2',
      rewind,
    });

    const ranges = ledger.get(events) ?? { ranges: [] };
    const eventsEnd = ranges.ranges.reduce((sum, r) => sum + Number(r.high), 0);
    expect(await admin.groupLag(group, [events, tier])).toEqual([
      { topic: events, lag: eventsEnd - 2 },
      { topic: tier, lag: 4 },
    ]);
  });

  it('a topic that does not exist: the per-topic reads answer it, as nothing committed and no partitions', async () => {
    await admin.connect();
    const missing = uniqueName('ledger-missing');
    const ledger = await admin.groupLedger(uniqueName('ledger-group'), [missing]);
    expect(ledger.get(missing)).toEqual({ committed: [], ranges: [] });
  });
});

describe('topicsWrittenSince (what a join looks for copies in)', () => {
  it('names only the topics holding a record written at or after the time, in one round for all', async () => {
    await admin.connect();
    await producer.connect();
    const [empty, written] = [uniqueName('written-empty'), uniqueName('written-some')];
    await admin.ensureTopics(
      [empty, written].map((topic) => ({ topic, partitions: 2, replicationFactor: 1 })),
    );
    const before = Date.now() - 60_000;
    await producer.send({ topic: written, acks: -1, messages: [{ value: 'x' }] });
    const after = Date.now() + 60_000;
    expect(await admin.topicsWrittenSince([empty, written], before)).toEqual(new Set([written]));
    // Its record is older than that: nothing was written since, in either topic.
    expect(await admin.topicsWrittenSince([empty, written], after)).toEqual(new Set());
    expect(await admin.topicsWrittenSince([], before)).toEqual(new Set());
  });
});
