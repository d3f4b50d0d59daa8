import type { Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createKafka } from '../../src/connection/kafka-connection.ts';
import { bindKafkaClient, kafkaOf } from '../../src/connection/raw-client.ts';

/** A connection whose kafkajs client answers with the given admin: no broker needed. */
function connectionWith(admin: Record<string, unknown>) {
  const connection = createKafka({ brokers: ['127.0.0.1:1'], clientId: 'unit', quiet: true });
  bindKafkaClient(connection, { admin: () => admin } as unknown as Kafka, {});
  return connection;
}

const metadata = {
  topics: [
    {
      name: 'orders',
      partitions: [
        { partitionId: 1, leader: 2, replicas: [2, 1], isr: [2] },
        { partitionId: 0, leader: 1, replicas: [1, 2], isr: [1, 2] },
      ],
    },
  ],
};

describe('KafkaConnection', () => {
  it('shows nothing of the client on its surface', () => {
    const connection = createKafka({ brokers: ['127.0.0.1:1'], clientId: 'unit', quiet: true });
    expect(Object.keys(connection)).toEqual(['clientId']);
    expect(kafkaOf(connection)).toBeDefined();
  });

  it('refuses an object that createKafka did not make', () => {
    expect(() => kafkaOf({ clientId: 'x' } as never)).toThrow(/not a KafkaConnection/);
  });
});

describe('KafkaAdmin', () => {
  const admin = connectionWith({
    listTopics: async () => ['orders'],
    fetchTopicMetadata: async () => metadata,
    describeConfigs: async () => ({
      resources: [
        {
          // Kafka names each resource in its answer; the admin matches configs to topics by it.
          resourceName: 'orders',
          configEntries: [
            { configName: 'retention.ms', configValue: '86400000' },
            { configName: 'cleanup.policy', configValue: 'delete' },
          ],
        },
      ],
    }),
    deleteTopics: async () => {
      throw new Error('must not be called for an empty list');
    },
  }).admin();

  it('gives partitions in order with leaders and replicas, and null for a missing topic', async () => {
    expect(await admin.topicPartitions('orders')).toEqual([
      { partition: 0, leader: 1, replicas: [1, 2], isr: [1, 2] },
      { partition: 1, leader: 2, replicas: [2, 1], isr: [2] },
    ]);
    expect(await admin.partitionCount('orders')).toBe(2);
    expect(await admin.partitionCount('missing')).toBeNull();
    expect(await admin.topicPartitions('missing')).toBeNull();
  });

  it('gives a topic config as a plain record, null for a missing topic', async () => {
    expect(await admin.topicConfig('orders')).toEqual({
      'retention.ms': '86400000',
      'cleanup.policy': 'delete',
    });
    expect(await admin.topicConfig('missing')).toBeNull();
  });

  it('deletes nothing for an empty list', async () => {
    await expect(admin.deleteTopics([])).resolves.toBeUndefined();
  });
});
