import type { Kafka } from 'kafkajs';

/** How long the positioning member's paused fetch waits before it may leave (kafkajs: 5 s). */
const POSITIONING_FETCH_WAIT_MS = 50;

/** Where one topic's partitions are to be committed. */
export interface TopicPositions {
  readonly topic: string;
  readonly partitions: readonly { readonly partition: number; readonly offset: string }[];
}

/**
 * Commits offsets for a group with no live member, as kafkajs's admin.setOffsets does (a member
 * joins, pauses, seeks, which commits, and leaves at the first fetch), but with a short fetch
 * wait: setOffsets's member waits the default 5 s for that first fetch, which made every new
 * subscriber's start take over 5 s. Refuses a group that has members, like setOffsets. Several
 * topics are positioned by one member, so a group begins on all of them at once.
 */
export async function commitEmptyGroupOffsets(
  kafka: Kafka,
  groupId: string,
  positions: readonly TopicPositions[],
): Promise<void> {
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: POSITIONING_FETCH_WAIT_MS });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: positions.map((p) => p.topic), fromBeginning: true });
    const { state } = await consumer.describeGroup();
    if (state !== 'Empty' && state !== 'Dead')
      throw new Error(`The consumer group must have no running instances, current state: ${state}`);
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.FETCH, () => resolve());
      consumer.on(consumer.events.CRASH, ({ payload }) => reject(payload.error));
      consumer.run({ eachBatchAutoResolve: false, eachBatch: async () => undefined }).catch(reject);
      consumer.pause(positions.map(({ topic }) => ({ topic })));
      for (const { topic, partitions } of positions)
        for (const p of partitions) consumer.seek({ topic, partition: p.partition, offset: p.offset });
    });
  } finally {
    await consumer.disconnect();
  }
}
