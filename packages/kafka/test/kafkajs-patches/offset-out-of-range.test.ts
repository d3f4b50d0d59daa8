import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  OffsetOutOfRangeRejoin,
  patchKafkajsOffsetOutOfRange,
  rejoinOnOutOfRange,
} from '../../src/kafkajs-patches/offset-out-of-range.ts';

const require = createRequire(import.meta.url);
const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as {
  prototype: { recoverFromOffsetOutOfRange(this: unknown, e: object): Promise<void> };
};
const { isRebalancing } = require('kafkajs/src/errors.js') as { isRebalancing(e: unknown): boolean };

/** What the recovery touches of a consumer group: its replicas, its log, its offset manager. */
function group(replicas: Record<number, unknown> = {}) {
  const resets: object[] = [];
  const errors: string[] = [];
  return {
    resets,
    errors,
    groupId: 'g',
    memberId: 'm',
    preferredReadReplicasPerTopicPartition: { t: replicas },
    logger: { info: () => undefined, error: (message: string) => errors.push(message) },
    offsetManager: { setDefaultOffset: async (tp: object) => void resets.push(tp) },
  };
}

describe('patchKafkajsOffsetOutOfRange', () => {
  it('commits no reset (kafkajs committed -2 and read on from the log start) and makes the runner rejoin instead', async () => {
    patchKafkajsOffsetOutOfRange();
    const undo = rejoinOnOutOfRange('g');
    const g = group();
    const recovery = ConsumerGroup.prototype.recoverFromOffsetOutOfRange.call(g, {
      topic: 't',
      partition: 0,
    });
    await expect(recovery).rejects.toBeInstanceOf(OffsetOutOfRangeRejoin);
    const error = await recovery.catch((e: unknown) => e);
    expect(g.resets).toEqual([]);
    expect(g.errors).toEqual(['Offset out of range: not resetting; rejoining so the gap is recorded']);
    // kafkajs's runner rejoins the group on what it takes for a rebalance.
    expect(isRebalancing(error)).toBe(true);
    undo();
  });

  it('leaves the groups no member registered (the tap, the tools’ readers: no ledger) to kafkajs’s reset', async () => {
    patchKafkajsOffsetOutOfRange();
    const undo = rejoinOnOutOfRange('g');
    undo();
    const g = group();
    await ConsumerGroup.prototype.recoverFromOffsetOutOfRange.call(g, { topic: 't', partition: 0 });
    expect(g.resets).toEqual([{ topic: 't', partition: 0 }]);
  });

  it('still retries a follower’s refusal with the leader first, resetting nothing', async () => {
    patchKafkajsOffsetOutOfRange();
    const undo = rejoinOnOutOfRange('g');
    const g = group({ 0: 2 });
    await ConsumerGroup.prototype.recoverFromOffsetOutOfRange.call(g, { topic: 't', partition: 0 });
    expect(g.preferredReadReplicasPerTopicPartition.t).toEqual({});
    expect(g.resets).toEqual([]);
    undo();
  });

  it('patches once, however often it is called', () => {
    patchKafkajsOffsetOutOfRange();
    const first = ConsumerGroup.prototype.recoverFromOffsetOutOfRange;
    patchKafkajsOffsetOutOfRange();
    expect(ConsumerGroup.prototype.recoverFromOffsetOutOfRange).toBe(first);
  });
});
