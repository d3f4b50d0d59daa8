import {
  createKafka,
  partitionForKey,
  READER_GROUP_PREFIX,
  RecordSender,
  readTopic,
} from '@hookstream/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-topic-reader', quiet: true });
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

function records(n: number, tag: string) {
  return Array.from({ length: n }, (_, i) => ({
    key: `k${i}`,
    value: Buffer.from(`${tag}-${i}`),
    headers: { ce_id: `${tag}-${i}` },
  }));
}

describe('readTopic', () => {
  it('reads every record up to the end offsets seen at start, then stops, leaving no group behind', async () => {
    const topic = uniqueName('reader');
    await createTopic(topic, 3);
    const positions = await sender.send(topic, records(30, 'a'));
    const read = await readTopic(kafka, { topic, purpose: 'test' });
    expect(read.map((r) => r.value?.toString()).sort()).toEqual(
      records(30, 'a')
        .map((r) => r.value.toString())
        .sort(),
    );
    // Where RecordSender said each record went, the reader found it.
    const byValue = new Map(read.map((r) => [r.value?.toString(), `${r.partition}:${r.offset}`]));
    expect(positions.map((_, i) => byValue.get(`a-${i}`))).toEqual(
      positions.map((p) => `${p.partition}:${p.offset}`),
    );
    expect(read[0]?.headers.ce_id).toBeDefined();
    // No throwaway group survives, and none under the subscriber prefix was made.
    const left = await admin.listGroupIds(READER_GROUP_PREFIX);
    expect(left.filter((g) => g.startsWith(`${READER_GROUP_PREFIX}test.`))).toEqual([]);
  });

  it('reads only the newest records of each partition when bounded', async () => {
    const topic = uniqueName('reader-last');
    await createTopic(topic, 1);
    await sender.send(topic, records(10, 'b'));
    const read = await readTopic(kafka, { topic, lastPerPartition: 3, purpose: 'test' });
    expect(read.map((r) => r.value?.toString())).toEqual(['b-7', 'b-8', 'b-9']);
    // A later start (a timestamp past them all) still wins over the bound.
    expect(
      await readTopic(kafka, { topic, lastPerPartition: 3, from: { timestampMs: Date.now() + 60_000 } }),
    ).toEqual([]);
  });

  it('returns nothing from an empty topic without joining a group', async () => {
    const topic = uniqueName('reader-empty');
    await createTopic(topic, 2);
    expect(await readTopic(kafka, { topic })).toEqual([]);
  });

  it('reads only the given partitions, from a timestamp, and keeps what the filter keeps', async () => {
    const topic = uniqueName('reader-part');
    await createTopic(topic, 3);
    await sender.send(topic, records(20, 'old'));
    const cut = Date.now() + 1;
    await waitUntilPast(cut);
    await sender.send(topic, records(20, 'new'));
    const fromCut = await readTopic(kafka, { topic, from: { timestampMs: cut } });
    expect(fromCut.map((r) => r.value?.toString()).every((v) => v?.startsWith('new'))).toBe(true);
    expect(fromCut).toHaveLength(20);

    const partition = partitionForKey(topic, 'k3', 3);
    const one = await readTopic(kafka, { topic, partitions: [partition] });
    expect(one.length).toBeGreaterThan(0);
    expect(one.every((r) => r.partition === partition)).toBe(true);
    expect(one.filter((r) => r.key === 'k3')).toHaveLength(2);

    const kept = await readTopic(kafka, { topic, keep: (r) => r.headers.ce_id === 'old-7' });
    expect(kept.map((r) => r.value?.toString())).toEqual(['old-7']);
  });

  it('refuses a topic that does not exist with NO_SUCH_TOPIC', async () => {
    await expect(readTopic(kafka, { topic: uniqueName('missing') })).rejects.toMatchObject({
      code: 'NO_SUCH_TOPIC',
      canRetry: false,
    });
  });

  it('commits and reads back a group ledger without joining it', async () => {
    const topic = uniqueName('reader-ledger');
    await createTopic(topic, 2);
    await sender.send(topic, records(6, 'x'));
    const group = `hookstream.sub.${uniqueName('ledger')}`;
    expect(await admin.committedOffsets(group, topic)).toEqual([
      { partition: 0, offset: null },
      { partition: 1, offset: null },
    ]);
    await admin.commitOffsets(group, topic, [{ partition: 1, offset: '2' }]);
    expect(await admin.committedOffsets(group, topic)).toEqual([
      { partition: 0, offset: null },
      { partition: 1, offset: '2' },
    ]);
    expect(await admin.listGroupIds('hookstream.sub.')).toContain(group);
  });
});

/** Kafka timestamps have millisecond resolution: make sure the clock moved past `t`. */
async function waitUntilPast(t: number): Promise<void> {
  while (Date.now() <= t) await new Promise((r) => setImmediate(r));
}
