import { createKafka, createRawConsumer } from '@hookstream/kafka';
import { endpoints } from './stack.ts';
import { waitFor } from './wait.ts';

export interface ReadRecord {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** Creates a test topic with explicit partitions (the broker does not auto-create). */
export async function createTopic(
  topic: string,
  partitions = 3,
  brokers: readonly string[] = endpoints.brokers,
): Promise<void> {
  const admin = createKafka({ brokers, clientId: 'test-topic', quiet: true }).admin();
  await admin.connect();
  try {
    await admin.ensureTopics([{ topic, partitions, replicationFactor: 1 }]);
  } finally {
    await admin.disconnect();
  }
}

/** The sum of a topic's end offsets: how many records were ever written to it. */
export async function endOffsetTotal(
  topic: string,
  brokers: readonly string[] = endpoints.brokers,
): Promise<number> {
  const total = await endOffsetSum(topic, brokers);
  if (total === null) throw new Error(`topic ${topic} does not exist`);
  return total;
}

/**
 * How many dead letters a subscriber ever had. Its DLQ topic is made when it starts, so a
 * subscriber that never ran has none: 0, not an error.
 */
export async function deadLetterTotal(
  dlqTopic: string,
  brokers: readonly string[] = endpoints.brokers,
): Promise<number> {
  return (await endOffsetSum(dlqTopic, brokers)) ?? 0;
}

/** The sum of a topic's end offsets, or null when it does not exist. */
async function endOffsetSum(topic: string, brokers: readonly string[]): Promise<number | null> {
  const admin = createKafka({ brokers, clientId: 'test-offsets', quiet: true }).admin();
  await admin.connect();
  try {
    const offsets = await admin.topicOffsets(topic);
    return offsets === null ? null : offsets.reduce((sum, p) => sum + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Reads the topic from the beginning until `count` records arrived. */
export async function readRecords(
  topic: string,
  count: number,
  brokers: readonly string[] = endpoints.brokers,
): Promise<ReadRecord[]> {
  const kafka = createKafka({ brokers, clientId: 'test-reader', quiet: true });
  const consumer = createRawConsumer(kafka, {
    groupId: `test-reader-${topic}-${Date.now()}`,
    maxWaitTimeInMs: 100,
  });
  const records: ReadRecord[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe([topic], { fromBeginning: true });
    await consumer.run(async ({ partition, offset, key, value, headers }) => {
      records.push({ partition, offset, key, value, headers });
    });
    await waitFor(`${count} records on ${topic}`, async () => (records.length >= count ? true : undefined), {
      timeoutMs: 30_000,
    });
    return records;
  } finally {
    await consumer.disconnect();
  }
}
