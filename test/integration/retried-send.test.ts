import { createKafka, createRawProducer, RecordSender } from '@hookstream/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic, endOffsetTotal, readRecords } from '../support/topic.ts';

// Issue 41, item 3: a send to a topic made a moment ago met partitions whose leader was not
// ready yet, and kafkajs's retry wrote the partitions that had succeeded a second time.
const PARTITIONS = 64;
const PER_PATH = 2000;
const ROUNDS = 5;

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'retried-send-test', quiet: true });
// Under vitest (NODE_ENV=test) kafkajs backs off 50 ms, then 1.5 times longer each retry
// (retry/defaults.test.js), not 300 ms doubling: eight retries span the 2.5 s a fresh topic's 64
// leaders can take on a busy broker (five, 0.66 s, ran out once beside two other files), as the
// ingress's two do outside tests.
const sender = new RecordSender(kafka, { retries: 8 });
const raw = createRawProducer(kafka);
const topics: string[] = [];

const recordsOf = (path: string) =>
  Array.from({ length: PER_PATH }, (_, i) => ({
    key: `key-${i}`,
    value: Buffer.from(`${path}-${i}`),
    headers: {},
  }));

/** How many times each value was written, and the values seen more or less than once. */
function tally(values: readonly string[], expected: readonly string[]) {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const duplicated = [...counts].filter(([, n]) => n > 1).length;
  const missing = expected.filter((v) => !counts.has(v)).length;
  return { duplicated, missing };
}

describe("A send's retry writes nothing twice (issue 41, item 3)", () => {
  beforeAll(() => Promise.all([sender.connect(), raw.connect()]));
  afterAll(async () => {
    await Promise.all([sender.disconnect(), raw.disconnect()]);
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.deleteTopics(topics);
    } finally {
      await admin.disconnect();
    }
  });

  it(`sends ${PER_PATH} records per path to a fresh ${PARTITIONS}-partition topic, ${ROUNDS} times, each record once`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const topic = uniqueName('retried-send');
      topics.push(topic);
      await createTopic(topic, PARTITIONS);
      const viaSender = recordsOf('sender');
      const viaRaw = recordsOf('raw');
      // At once, right after creation: the moment partitions may still be without a leader.
      const [positions] = await Promise.all([
        sender.send(topic, viaSender),
        raw.send({ topic, messages: viaRaw.map((r) => ({ key: r.key, value: r.value })) }),
      ]);

      const written = await endOffsetTotal(topic);
      const read = await readRecords(topic, written);
      const values = read.map((r) => r.value?.toString() ?? '');
      const expected = [...viaSender, ...viaRaw].map((r) => r.value.toString());
      expect({ round, written, ...tally(values, expected) }).toEqual({
        round,
        written: 2 * PER_PATH,
        duplicated: 0,
        missing: 0,
      });
      // Each position the sender told holds the record it wrote.
      const at = new Map(read.map((r) => [`${r.partition}/${r.offset}`, r.value?.toString()]));
      expect(positions.filter((p, i) => at.get(`${p.partition}/${p.offset}`) !== `sender-${i}`)).toEqual([]);
    }
  });
});
