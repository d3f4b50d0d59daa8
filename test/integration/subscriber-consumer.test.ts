import { setTimeout as sleep } from 'node:timers/promises';
import { type ConsumedRecord, createKafka, createRawProducer } from '@hookstream/kafka';
import { type HandlerOutcome, SubscriberConsumer } from '@hookstream/pusher-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { plainSubscription } from '../support/subscription.ts';
import { waitFor } from '../support/wait.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'consumer-test', quiet: true });
const admin = kafka.admin();
const producer = createRawProducer(kafka);
const quiet = () => undefined;

async function topicWith(count: number, keyOf: (i: number) => string, partitions = 1): Promise<string> {
  const topic = uniqueName('consumer-test');
  await admin.ensureTopics([{ topic, partitions, replicationFactor: 1 }]);
  await producer.send({
    topic,
    acks: -1,
    messages: Array.from({ length: count }, (_, i) => ({ key: keyOf(i), value: String(i) })),
  });
  return topic;
}

async function committed(groupId: string, topic: string): Promise<string[]> {
  // Sorted by partition; a partition without a commit shows as Kafka reports it, -1.
  return (await admin.committedOffsets(groupId, topic)).map((p) => p.offset ?? '-1');
}

function consumer(
  topic: string,
  groupId: string,
  handle: (r: ConsumedRecord, s: AbortSignal) => Promise<HandlerOutcome>,
  ordering: 'none' | 'key' = 'none',
) {
  return new SubscriberConsumer({
    subscription: plainSubscription({ groupId, topic, ordering }),
    process: { kafka, maxWaitTimeInMs: 100 },
    start: 'earliest',
    handle,
    log: quiet,
    onFatal: (e) => {
      throw e;
    },
  });
}

describe('SubscriberConsumer against the real broker', () => {
  beforeAll(async () => {
    await admin.connect();
    await producer.connect();
  });
  afterAll(async () => {
    await producer.disconnect();
    await admin.disconnect();
  });

  it('commits only the contiguous settled prefix, and the next owner resumes at the first unsettled record', async () => {
    const topic = await topicWith(10, (i) => `k${i}`);
    const groupId = uniqueName('consumer-test-group');
    const settled = new Set<string>();
    const first = consumer(topic, groupId, async (r, signal) => {
      if (r.offset === '3') {
        // Never acknowledged: waits until the consumer stops, then gives up.
        await new Promise((ok) => signal.addEventListener('abort', ok, { once: true }));
        return 'abandoned';
      }
      await sleep(Number(r.offset) % 3);
      settled.add(r.offset);
      return 'settled';
    });
    expect(await first.start()).toBe('earliest');
    await waitFor('nine records settled', async () => (settled.size === 9 ? true : undefined));
    await first.stop();
    expect(await committed(groupId, topic)).toEqual(['3']);

    const seen: string[] = [];
    const second = consumer(topic, groupId, async (r) => {
      seen.push(r.offset);
      return 'settled';
    });
    expect(await second.start()).toBe('ledger');
    await waitFor('the rest delivered again', async () => (seen.length >= 7 ? true : undefined));
    await second.stop();
    expect(seen.sort((a, b) => Number(a) - Number(b))).toEqual(['3', '4', '5', '6', '7', '8', '9']);
    expect(await committed(groupId, topic)).toEqual(['10']);
  });

  it('commits the settled prefix about every second while one long batch is still running', async () => {
    // One fetch holds all forty records. Eight at a time take 700 ms each, so the batch runs ~3.5 s
    // and its loop only wakes in bursts between the consumer's one-second heartbeats: the ledger
    // must still advance mid-batch, or a crash redelivers the whole batch.
    const total = 40;
    const topic = await topicWith(total, (i) => `k${i}`);
    const groupId = uniqueName('consumer-test-group');
    let settled = 0;
    const c = consumer(topic, groupId, async () => {
      await sleep(700);
      settled++;
      return 'settled';
    });
    await c.start();
    try {
      const settledAtFirstCommit = await waitFor(
        'a commit',
        async () => (Number((await committed(groupId, topic))[0] ?? -1) > 0 ? settled : undefined),
        { intervalMs: 50 },
      );
      expect(settledAtFirstCommit).toBeLessThan(total);
      await waitFor('all forty', async () => (settled === total ? true : undefined));
    } finally {
      await c.stop();
    }
    expect(await committed(groupId, topic)).toEqual([String(total)]);
  });

  it('with ordering by key keeps one record per key in flight and each key in order', async () => {
    const topic = await topicWith(40, (i) => `k${i % 4}`);
    const groupId = uniqueName('consumer-test-group');
    const inFlight = new Map<string, number>();
    const done: { key: string; value: number }[] = [];
    let overlap = false;
    const c = consumer(
      topic,
      groupId,
      async (r) => {
        const key = r.key ?? '';
        inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
        if ((inFlight.get(key) ?? 0) > 1) overlap = true;
        await sleep(Number(r.value?.toString()) % 5);
        inFlight.set(key, (inFlight.get(key) ?? 0) - 1);
        done.push({ key, value: Number(r.value?.toString()) });
        return 'settled';
      },
      'key',
    );
    await c.start();
    await waitFor('all forty', async () => (done.length === 40 ? true : undefined));
    await c.stop();
    expect(overlap).toBe(false);
    for (const key of ['k0', 'k1', 'k2', 'k3']) {
      const values = done.filter((d) => d.key === key).map((d) => d.value);
      expect(values).toEqual([...values].sort((a, b) => a - b));
    }
    // Different keys did run side by side: completion order is not the offset order.
    expect(done.map((d) => d.value)).not.toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
});
