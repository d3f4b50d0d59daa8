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

/** Groups whose members rejoin instead of resetting, with how many members of each run here. */
const rejoining = new Map<string, number>();

/**
 * The members of `groupId` in this process rejoin on OFFSET_OUT_OF_RANGE instead of letting
 * kafkajs reset (a subscriber's group: its join records the gap). Other groups (the tap, the
 * tools' readers, which hold no ledger) keep kafkajs's own recovery. Returns the undo.
 */
export function rejoinOnOutOfRange(groupId: string): () => void {
  rejoining.set(groupId, (rejoining.get(groupId) ?? 0) + 1);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    const left = (rejoining.get(groupId) ?? 1) - 1;
    if (left > 0) rejoining.set(groupId, left);
    else rejoining.delete(groupId);
  };
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
 * a follower is retried with the leader first, as before. Only groups registered with
 * `rejoinOnOutOfRange` rejoin; the others recover as kafkajs does. A correctness patch: without
 * it records can be lost unreported.
 */
export function patchKafkajsOffsetOutOfRange(): true {
  const require = createRequire(import.meta.url);
  // Deep path: the class is not exported. Checked by this package's tests against the installed
  // kafkajs, so an upgrade that moves or changes it fails there rather than silently.
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as {
    prototype: {
      recoverFromOffsetOutOfRange(this: ConsumerGroupLike, e: OutOfRange): Promise<void>;
      hookstreamPatched?: true;
    };
  };
  const proto = ConsumerGroup.prototype;
  if (proto.hookstreamPatched) return true;
  const original = proto.recoverFromOffsetOutOfRange;
  proto.recoverFromOffsetOutOfRange = async function recoverFromOffsetOutOfRange(
    this: ConsumerGroupLike,
    e: OutOfRange,
  ): Promise<void> {
    if (!rejoining.has(this.groupId)) return original.call(this, e);
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
