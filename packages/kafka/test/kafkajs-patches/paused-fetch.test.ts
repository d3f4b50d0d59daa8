import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PAUSED_WAIT_MS, patchKafkajsPausedFetch } from '../../src/kafkajs-patches/paused-fetch.ts';

const require = createRequire(import.meta.url);
type Fn = (this: unknown, ...args: unknown[]) => unknown;
const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as {
  prototype: { fetch: Fn; resume: Fn; seek: Fn };
};
const Runner = require('kafkajs/src/consumer/runner.js') as { prototype: { stop: Fn } };

/** What kafkajs's own fetch reads of a member with one partition of `topic`, on broker 0. */
function member(paused: boolean) {
  const state = { paused, fetches: 0, seeks: 0 };
  // kafkajs's own methods, on the state its fetch reads.
  const group = Object.assign(Object.create(ConsumerGroup.prototype) as object, {
    maxWaitTime: 5,
    cluster: {
      refreshMetadataIfNecessary: async () => undefined,
      // An active partition: the broker answers with nothing.
      findBroker: async () => ({ fetch: async () => ({ responses: [] }) }),
    },
    recoverFromFetch: async (error: unknown) => {
      throw error;
    },
    checkForStaleAssignment: () => undefined,
    subscriptionState: {
      assigned: () => [{ topic: 't', partitions: [0] }],
      active: () => [{ topic: 't', partitions: state.paused ? [] : [0] }],
      resume: () => {
        state.paused = false;
      },
    },
    filterPartitionsByNode: (_node: number, tps: { topic: string; partitions: number[] }[]) => tps,
    seekOffsets: async () => undefined,
    seekOffset: { set: () => state.seeks++, has: () => false },
    offsetManager: { committedOffsets: () => ({ t: { 0: '0' } }), nextOffset: () => 0n },
    logger: { info: () => undefined },
    async fetchOnce(): Promise<number> {
      const started = performance.now();
      await ConsumerGroup.prototype.fetch.call(this, 0);
      state.fetches++;
      return performance.now() - started;
    },
  });
  return { group, state };
}

describe('patchKafkajsPausedFetch', () => {
  it('lets a paused member wait between looks, past its first, instead of looping every fetch wait', async () => {
    patchKafkajsPausedFetch();
    const { group } = member(true);
    // The first look after a join goes straight to kafkajs's (its 5 ms sleep).
    expect(await group.fetchOnce()).toBeLessThan(PAUSED_WAIT_MS / 2);
    expect(await group.fetchOnce()).toBeGreaterThanOrEqual(PAUSED_WAIT_MS - 20);
  });

  it('ends the wait at once on a resume, a seek or the runner stop', async () => {
    patchKafkajsPausedFetch();
    for (const end of ['resume', 'seek', 'stop'] as const) {
      const { group, state } = member(true);
      await group.fetchOnce();
      // The patched fetch enters its wait synchronously: the member is waiting once this returns.
      const waiting = group.fetchOnce();
      if (end === 'resume') ConsumerGroup.prototype.resume.call(group, [{ topic: 't', partitions: [0] }]);
      else if (end === 'seek')
        ConsumerGroup.prototype.seek.call(group, { topic: 't', partition: 0, offset: '3' });
      else await Runner.prototype.stop.call({ consumerGroup: group, running: false });
      expect(await waiting, end).toBeLessThan(PAUSED_WAIT_MS / 2);
      expect(state.fetches).toBe(2);
    }
  });

  it('does not wait when a partition is active', async () => {
    patchKafkajsPausedFetch();
    const { group, state } = member(true);
    await group.fetchOnce();
    state.paused = false;
    expect(await group.fetchOnce()).toBeLessThan(PAUSED_WAIT_MS / 2);
    expect(await group.fetchOnce()).toBeLessThan(PAUSED_WAIT_MS / 2);
  });

  it('patches once, however often it is called', () => {
    patchKafkajsPausedFetch();
    const first = ConsumerGroup.prototype.fetch;
    patchKafkajsPausedFetch();
    expect(ConsumerGroup.prototype.fetch).toBe(first);
  });
});
