import { createKafka, createRawProducer } from '@hookstream/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

describe('committedOffsetsOfGroups (one OffsetFetch v8 for many groups)', () => {
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'group-batch-test', quiet: true });
  const admin = kafka.admin();
  afterAll(() => admin.disconnect());

  it('answers as kafkajs’s OffsetFetch does group by group, from one batch', async () => {
    await admin.connect();
    const topic = uniqueName('group-batch');
    await admin.ensureTopics([{ topic, partitions: 3, replicationFactor: 1 }]);
    const groups = [0, 1, 2, 3, 4].map((i) => uniqueName(`group-batch-${i}`));
    const [g0, g1, g2, g3] = groups as [string, string, string, string, string];
    await admin.commitOffsets(g0, topic, [{ partition: 0, offset: '5' }]);
    await admin.commitOffsets(g1, topic, [
      { partition: 0, offset: '1' },
      { partition: 1, offset: '2' },
      { partition: 2, offset: '3' },
    ]);
    // kafkajs's reset commits -2 ("earliest"): read as the partition's log start.
    await admin.commitOffsets(g2, topic, [{ partition: 1, offset: '-2' }]);
    await admin.commitOffsets(g3, topic, [{ partition: 2, offset: '0' }]);
    // groups[4] never committed: every partition without a ledger.
    try {
      const before = admin.groupReads();
      const batched = await admin.committedOffsetsOfGroups(groups, topic);
      const after = admin.groupReads();
      expect(after.batched - before.batched).toBe(groups.length);
      expect(after.single - before.single).toBe(0);

      const oneByOne = new Map(
        await Promise.all(groups.map(async (g) => [g, await admin.committedOffsets(g, topic)] as const)),
      );
      expect(new Map([...batched].sort())).toEqual(new Map([...oneByOne].sort()));
      expect(batched.get(g1)?.map((c) => c.offset)).toEqual(['1', '2', '3']);
      expect(batched.get(g2)?.map((c) => c.offset)).toEqual([null, '0', null]);
      expect(batched.get(groups[4] ?? '')?.every((c) => c.offset === null)).toBe(true);
    } finally {
      await admin.deleteGroups(groups);
      await admin.deleteTopics([topic]);
    }
  });

  it('topicDepths answers as topicDepth does topic by topic, in one go', async () => {
    await admin.connect();
    const producer = createRawProducer(kafka);
    const topics = [0, 1, 2].map((i) => uniqueName(`depths-${i}`));
    await admin.ensureTopics(
      topics.map((topic, i) => ({ topic, partitions: i === 1 ? 2 : 1, replicationFactor: 1 })),
    );
    try {
      await producer.connect();
      for (const [i, topic] of topics.entries())
        await producer.send({
          topic,
          acks: -1,
          messages: Array.from({ length: 3 * i }, (_, n) => ({ key: `k${n}`, value: Buffer.from('x') })),
        });
      // Records below a low mark are not held: depth counts from the log start. (kafkajs's admin
      // must know the topic's partitions before it deletes records.)
      await admin.topicOffsets(topics[2] ?? '');
      await admin.deleteRecordsBefore(topics[2] ?? '', 0, 2);
      const depths = await admin.topicDepths(topics);
      const one = await Promise.all(topics.map((t) => admin.topicDepth(t)));
      expect(topics.map((t) => depths.get(t))).toEqual(one);
      expect(one[0]).toBe(0);
      expect(one[1]).toBe(3);
      expect(one[2]).toBe(4);
    } finally {
      await producer.disconnect();
      await admin.deleteTopics(topics);
    }
  });

  it('topicDepths leaves out a topic deleted after it was listed, and answers for the rest', async () => {
    await admin.connect();
    const [kept, deleted] = [uniqueName('depths-kept'), uniqueName('depths-deleted')];
    await admin.ensureTopics(
      [kept, deleted].map((topic) => ({ topic, partitions: 1, replicationFactor: 1 })),
    );
    try {
      expect(await admin.topicDepths([kept, deleted])).toEqual(
        new Map([
          [kept, 0],
          [deleted, 0],
        ]),
      );
      await admin.deleteTopics([deleted]);
      // Kafka refuses a Metadata request naming an unknown topic whole; kafkajs then answered
      // null, and the console's overview failed on it while another process deleted a DLQ.
      await waitFor('the broker to forget the deleted topic', async () =>
        (await admin.topicExists(deleted)) ? undefined : true,
      );
      expect(await admin.topicDepths([kept, deleted])).toEqual(new Map([[kept, 0]]));
      // A group's ledger on a topic that is gone: no partitions, so nothing committed.
      const group = uniqueName('depths-group');
      expect(await admin.committedOffsetsOfGroups([group], deleted)).toEqual(new Map([[group, []]]));
    } finally {
      await admin.deleteTopics([kept]);
    }
  });
});
