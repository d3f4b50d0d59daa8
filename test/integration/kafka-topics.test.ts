import { createKafka, ensureTopics } from '@hookstream/kafka';
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
    expect(await ensureTopics(admin, [spec])).toEqual([topic]);
    expect(await ensureTopics(admin, [spec])).toEqual([]);

    const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
    expect(metadata?.partitions).toHaveLength(4);
    const configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ['retention.ms'] }],
    });
    expect(configs.resources[0]?.configEntries[0]?.configValue).toBe('86400000');
  });

  it('tolerates concurrent callers racing to create the same topic', async () => {
    await admin.connect();
    const topic = uniqueName('topics-race');
    const spec = { topic, partitions: 1, replicationFactor: 1 };
    const other = createKafka({ brokers: endpoints.brokers, clientId: 'topics-test-2', quiet: true }).admin();
    await other.connect();
    try {
      await Promise.all([ensureTopics(admin, [spec]), ensureTopics(other, [spec])]);
    } finally {
      await other.disconnect();
    }
    expect(await admin.listTopics()).toContain(topic);
  });
});
