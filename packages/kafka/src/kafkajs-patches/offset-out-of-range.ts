import { createRequire } from 'node:module';

interface OutOfRange {
  readonly topic: string;
  readonly partition: number;
}

interface ConsumerGroupLike {
  groupId: string;
  memberId: string;
  preferredReadReplicasPerTopicPartition: Record<string, Record<number, unknown> | undefined>;
  logger: { info(message: string, extra: object): void; error(message: string, extra: object): void };
}

/**
 * The error the patched recovery throws: the runner treats its type as a rebalance and rejoins
 * the group, whose join reads the ledger and records the gap (SubscriberConsumer).
 */
export class OffsetOutOfRangeRejoin extends Error {
  readonly type = 'REBALANCE_IN_PROGRESS';
  readonly retriable = true;
  readonly topic: string;
  readonly partition: number;

  constructor({ topic, partition }: OutOfRange) {
    super(`offset out of range on ${topic}:${partition}: rejoining the group, whose join records the gap`);
    this.name = 'HookstreamOffsetOutOfRange';
    this.topic = topic;
    this.partition = partition;
  }
}

/**
 * kafkajs 2.2.4 answers a fetch refused with OFFSET_OUT_OF_RANGE (the position is below the log
 * start: retention deleted what the group had not read) by committing -2 ("earliest") and
 * reading on from the log start, so the records deleted are skipped in silence and the ledger
 * says -2. This replaces that recovery: nothing is committed, and the member rejoins its group
 * (the runner's rebalance path), so the join compares the ledger with the log start and the
 * gap becomes a dead letter before anything moves past it (docs/architecture.md). A fetch from
 * a follower is retried with the leader first, as before. A correctness patch: without it
 * records can be lost unreported.
 */
export function patchKafkajsOffsetOutOfRange(): true {
  const require = createRequire(import.meta.url);
  // Deep path: the class is not exported. Checked by this package's tests against the installed
  // kafkajs, so an upgrade that moves or changes it fails there rather than silently.
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as {
    prototype: { recoverFromOffsetOutOfRange(e: OutOfRange): Promise<void>; hookstreamPatched?: true };
  };
  const proto = ConsumerGroup.prototype;
  if (proto.hookstreamPatched) return true;
  proto.recoverFromOffsetOutOfRange = async function recoverFromOffsetOutOfRange(
    this: ConsumerGroupLike,
    e: OutOfRange,
  ): Promise<void> {
    const { topic, partition } = e;
    const where = { topic, partition, groupId: this.groupId, memberId: this.memberId };
    const replicas = this.preferredReadReplicasPerTopicPartition[topic];
    if (replicas && typeof replicas[partition] === 'number') {
      this.logger.info('Offset out of range while fetching from follower, retrying with leader', where);
      delete replicas[partition];
      return;
    }
    this.logger.error('Offset out of range: not resetting; rejoining so the gap is recorded', where);
    throw new OffsetOutOfRangeRejoin(e);
  };
  proto.hookstreamPatched = true;
  return true;
}
