import { subscriberGroupId } from '@hookstream/contracts';
import type { KafkaAdmin } from '@hookstream/kafka';
import type { SampleReceiver } from '@hookstream/receiver';
import { expect } from 'vitest';
import { endOffsetTotal, readRecords } from './topic.ts';
import { waitFor } from './wait.ts';

/**
 * After a fault: waits for the subscriber's ledger to reach the topic's end, then checks that
 * every event stored on the topic (the 202s, and any 503 whose write landed anyway) was accepted
 * at the receiver, once per id. A producer retry during failover can store an event twice; its
 * id counts once. Returns how many records were such second copies.
 */
export async function expectEveryStoredEventDelivered(options: {
  readonly admin: KafkaAdmin;
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly subscriber: string;
  readonly receiver: SampleReceiver;
  readonly timeoutMs: number;
}): Promise<number> {
  const { admin, brokers, topic, subscriber, receiver } = options;
  const end = await endOffsetTotal(topic, brokers);
  await waitFor(
    'the ledger at the end',
    async () => {
      const offsets = await admin.committedOffsets(subscriberGroupId(subscriber), topic);
      const ledger = offsets.reduce((s, p) => s + Math.max(Number(p.offset ?? 0), 0), 0);
      return ledger === end ? true : undefined;
    },
    { timeoutMs: options.timeoutMs },
  );
  const onTopic = new Set((await readRecords(topic, end, brokers)).map((r) => r.headers.ce_id));
  expect([...onTopic].filter((id) => !receiver.hasAccepted(subscriber, id ?? ''))).toEqual([]);
  expect(receiver.stats().accepted).toBe(onTopic.size);
  return end - onTopic.size;
}
