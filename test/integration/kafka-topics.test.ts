import { createKafka } from '@hookstream/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';

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
