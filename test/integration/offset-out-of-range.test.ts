import { createKafka, createRawProducer, type PartitionGap } from '@hookstream/kafka';
import { SubscriberConsumer } from '@hookstream/pusher-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { plainSubscription } from '../support/subscription.ts';
import { waitFor } from '../support/wait.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'out-of-range-test', quiet: true });
const admin = kafka.admin();
const producer = createRawProducer(kafka);

/**
 * Issue 25, item 1, between joins: retention deletes records above a running lane's position
 * while its fetch is paused (its window and queue full behind a slow endpoint). kafkajs would
 * answer the next fetch's OFFSET_OUT_OF_RANGE by committing -2 and reading on from the log start
 * in silence; with the `offset-out-of-range` patch the member rejoins, and the join records the
 * gap, from where this member had settled, before anything moves past it.
 */
describe('a fetch refused below the log start while running', () => {
  beforeAll(async () => {
    await admin.connect();
    await producer.connect();
  });
  afterAll(async () => {
    await producer.disconnect();
    await admin.disconnect();
  });

  it('is a gap handed to onGap (not a reset to the log start), starting where the lane had settled; the rest is delivered', async () => {
    const topic = uniqueName('out-of-range');
    await admin.ensureTopics([{ topic, partitions: 1, replicationFactor: 1 }]);
    await producer.send({
      topic,
      acks: -1,
      messages: Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: String(i) })),
    });
    const groupId = uniqueName('out-of-range-group');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((ok) => {
      release = ok;
    });
    const seen = new Set<number>();
    const gaps: PartitionGap[] = [];
    const fatal: Error[] = [];
    const consumer = new SubscriberConsumer({
      subscription: plainSubscription({ groupId, topic }),
      process: { kafka, maxWaitTimeInMs: 100 },
      start: 'earliest',
      log: () => undefined,
      onFatal: (e) => void fatal.push(e),
      onGap: async (gap) => void gaps.push(gap),
      handle: async (record, signal) => {
        const offset = Number(record.offset);
        seen.add(offset);
        // The first ten go through; then the endpoint is slow until the test releases it.
        if (offset >= 10 && offset < 150)
          await Promise.race([
            gate,
            new Promise((ok) => signal.addEventListener('abort', ok, { once: true })),
          ]);
        return signal.aborted ? 'abandoned' : 'settled';
      },
    });
    await consumer.start();
    try {
      await waitFor('ten settled and committed, eight more in flight', async () => {
        const [ledger] = await admin.committedOffsets(groupId, topic);
        return seen.size >= 18 && ledger?.offset === '10' ? true : undefined;
      });
      await admin.deleteRecordsBefore(topic, 0, 150);
      release();
      await waitFor('the rest after the gap delivered', async () => {
        const [ledger] = await admin.committedOffsets(groupId, topic);
        return ledger?.offset === '200' ? true : undefined;
      });
    } finally {
      await consumer.stop();
    }
    expect(fatal).toEqual([]);
    // The lane had begun up to `settledTo` (its window and queue) before its fetch paused.
    const settledTo = Math.max(...[...seen].filter((o) => o < 150)) + 1;
    expect(settledTo).toBeLessThan(150);
    expect(gaps).toEqual([
      expect.objectContaining({
        topic,
        partition: 0,
        lostFrom: settledTo,
        lostTo: 149,
        lostCount: 150 - settledTo,
      }),
    ]);
    for (let o = 0; o < 200; o++) expect(seen.has(o), String(o)).toBe(o < settledTo || o >= 150);
  }, 60_000);
});
