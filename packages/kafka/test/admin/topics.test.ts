import type { Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { ensureTopics } from '../../src/admin/topics.ts';

/** kafkajs's error for a broker that has not seen the new topic's metadata yet. */
function unknownTopic(): Error {
  return Object.assign(new Error('This server does not host this topic-partition'), {
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
    retriable: true,
  });
}

/**
 * An admin whose metadata lags behind topic creation, as on a multi-broker cluster: kafkajs's
 * createTopics (waitForLeaders) then fails with UNKNOWN_TOPIC_OR_PARTITION although the topic
 * was created.
 */
function laggingAdmin(lagCalls: number, createError: Error = unknownTopic()) {
  const calls = { create: 0, metadata: 0 };
  const admin = {
    listTopics: async () => [],
    createTopics: async () => {
      calls.create++;
      throw createError;
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
      calls.metadata++;
      if (calls.metadata <= lagCalls) throw unknownTopic();
      return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader: 2 }] })) };
    },
  };
  // Only the calls ensureTopics makes are implemented.
  return { admin: admin as unknown as Admin, calls };
}

const spec = { topic: 'hookstream.sub.x.retry.1', partitions: 1, replicationFactor: 3 };

describe('ensureTopics', () => {
  it('waits through UNKNOWN_TOPIC_OR_PARTITION after creating a topic until it has leaders', async () => {
    const { admin, calls } = laggingAdmin(3);
    expect(await ensureTopics(admin, [spec], { intervalMs: 1 })).toEqual([spec.topic]);
    expect(calls).toEqual({ create: 1, metadata: 4 });
  });

  it('rethrows any other error of the creation', async () => {
    const { admin, calls } = laggingAdmin(0, new Error('Topic authorization failed'));
    await expect(ensureTopics(admin, [spec], { intervalMs: 1 })).rejects.toThrow('authorization');
    expect(calls.metadata).toBe(0);
  });

  it('gives up with the last error when leaders never appear', async () => {
    const { admin } = laggingAdmin(Number.POSITIVE_INFINITY);
    await expect(ensureTopics(admin, [spec], { timeoutMs: 20, intervalMs: 1 })).rejects.toThrow(
      'does not host this topic-partition',
    );
  });
});
