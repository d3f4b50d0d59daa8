import type { Kafka } from 'kafkajs';

/** How long the positioning member's paused fetch waits before it may leave (kafkajs: 5 s). */
const POSITIONING_FETCH_WAIT_MS = 50;

/** Where one topic's partitions are to be committed. */
export interface TopicPositions {
  readonly topic: string;
  readonly partitions: readonly {
    readonly partition: number;
    readonly offset: string;
    /** The commit's metadata (commit-metadata.ts); absent: none, as a seek commits. */
    readonly metadata?: string;
  }[];
}

/**
 * Commits offsets for a group with no live member, as kafkajs's admin.setOffsets does (a member
 * joins, pauses, seeks, which commits, and leaves at the first fetch), but with a short fetch
 * wait: setOffsets's member waits the default 5 s for that first fetch, which made every new
 * subscriber's start take over 5 s. Refuses a group that has members, like setOffsets. Several
 * topics are positioned by one member, so a group begins on all of them at once. A seek commits
 * no metadata, so a partition that has some is not sought but committed with it, explicitly, by
 * the same member at its first fetch, before it leaves (a seek's commit is made at the fetch of
 * the partition's own broker, which could land after it).
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
    const withMetadata = positions.flatMap(({ topic, partitions }) =>
      partitions.flatMap(({ partition, offset, metadata }) =>
        metadata === undefined ? [] : [{ topic, partition, offset, metadata }],
      ),
    );
    await new Promise<void>((resolve, reject) => {
      const remove = consumer.on(consumer.events.FETCH, () => {
        remove();
        if (withMetadata.length === 0) resolve();
        else consumer.commitOffsets(withMetadata).then(resolve, reject);
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => reject(payload.error));
      consumer.run({ eachBatchAutoResolve: false, eachBatch: async () => undefined }).catch(reject);
      consumer.pause(positions.map(({ topic }) => ({ topic })));
      for (const { topic, partitions } of positions)
        for (const p of partitions)
          if (p.metadata === undefined) consumer.seek({ topic, partition: p.partition, offset: p.offset });
    });
  } finally {
    await consumer.disconnect();
  }
}
