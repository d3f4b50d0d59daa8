import { createKafka, RecordSender } from '@hookstream/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic, readRecords } from '../support/topic.ts';

describe('RecordSender', () => {
  const sender = new RecordSender(
    createKafka({ brokers: endpoints.brokers, clientId: 'sender-test', quiet: true }),
  );
  const topic = uniqueName('sender-test');

  beforeAll(async () => {
    await createTopic(topic, 4);
    await sender.connect();
  });
  afterAll(() => sender.disconnect());

  it("tells each record's partition and offset, matching what a consumer reads there", async () => {
    const records = Array.from({ length: 40 }, (_, i) => ({
      key: `key-${i % 7}`,
      value: Buffer.from(`value-${i}`),
      headers: { n: String(i) },
    }));
    const first = await sender.send(topic, records.slice(0, 15));
    const second = await sender.send(topic, records.slice(15));
    const positions = [...first, ...second];

    const read = await readRecords(topic, records.length);
    const at = new Map(read.map((r) => [`${r.partition}/${r.offset}`, r]));
    positions.forEach((p, i) => {
      const stored = at.get(`${p.partition}/${p.offset}`);
      expect(stored?.value?.toString()).toBe(`value-${i}`);
      expect(stored?.key).toBe(`key-${i % 7}`);
    });
    // Same key, same partition: per-key order rests on it.
    const partitionOf = new Map<string, number>();
    for (const [i, p] of positions.entries()) {
      const key = `key-${i % 7}`;
      expect(partitionOf.get(key) ?? p.partition).toBe(p.partition);
      partitionOf.set(key, p.partition);
    }
  });
});
