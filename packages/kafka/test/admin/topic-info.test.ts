import type { Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { listTopicNames } from '../../src/admin/topic-info.ts';
import { KafkaReadError } from '../../src/errors.ts';

/** What kafkajs 2.2.4's listTopics throws when no broker answered its metadata request. */
const noBrokerAnswered = () =>
  new TypeError("Cannot destructure property 'topicMetadata' of '(intermediate value)' as it is null.");

/** An admin whose listTopics fails `failures` times as kafkajs does, then lists `topics`. */
function admin(failures: number, topics: string[] = ['events']): { admin: Admin; calls: () => number } {
  let calls = 0;
  const fake = {
    listTopics: async () => {
      calls++;
      if (calls <= failures) throw noBrokerAnswered();
      return topics;
    },
  };
  // Only listTopics is used here.
  return { admin: fake as unknown as Admin, calls: () => calls };
}

describe('listTopicNames', () => {
  it('asks again when no broker answered, and lists the topics', async () => {
    const { admin: a, calls } = admin(2);
    expect(await listTopicNames(a)).toEqual(['events']);
    expect(calls()).toBe(3);
  });

  it('reports Kafka unavailable, retriable, when no broker answers at all', async () => {
    const { admin: a, calls } = admin(100);
    const err = await listTopicNames(a).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KafkaReadError);
    expect(err).toMatchObject({ code: 'KAFKA_UNAVAILABLE', canRetry: true });
    expect(calls()).toBe(4);
  });

  it('passes any other error through at once', async () => {
    const refused = Object.assign(new Error('not authorized'), { type: 'CLUSTER_AUTHORIZATION_FAILED' });
    const fake = { listTopics: async () => Promise.reject(refused) } as unknown as Admin;
    await expect(listTopicNames(fake)).rejects.toBe(refused);
  });
});
