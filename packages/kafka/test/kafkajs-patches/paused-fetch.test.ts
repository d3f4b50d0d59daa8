import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
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

/**
 * Runs a fetch on the fake clock, moving it from timer to timer until the fetch ends, and returns
 * how long it took there. With real timers a fetch that must not wait was held to a bound (under
 * 500 ms) that a machine busy with other work could exceed.
 */
async function timed(fetch: Promise<number>): Promise<number> {
  let done = false;
  void fetch.finally(() => {
    done = true;
  });
  for (let step = 0; !done; step++) {
    if (step === 100) throw new Error('the fetch did not end within 100 timers');
    await vi.advanceTimersToNextTimerAsync();
  }
  return fetch;
}

describe('patchKafkajsPausedFetch', () => {
  // kafkajs sleeps with the global setTimeout; fetchOnce measures with performance.now.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => vi.useRealTimers());

  it('lets a paused member wait between looks, past its first, instead of looping every fetch wait', async () => {
    patchKafkajsPausedFetch();
    const { group } = member(true);
    // The first look after a join goes straight to kafkajs's (its 5 ms sleep).
    expect(await timed(group.fetchOnce())).toBeLessThan(PAUSED_WAIT_MS / 2);
    expect(await timed(group.fetchOnce())).toBeGreaterThanOrEqual(PAUSED_WAIT_MS);
  });

  it('ends the wait at once on a resume, a seek or the runner stop', async () => {
    patchKafkajsPausedFetch();
    for (const end of ['resume', 'seek', 'stop'] as const) {
      const { group, state } = member(true);
      await timed(group.fetchOnce());
      // The patched fetch enters its wait synchronously: the member is waiting once this returns.
      const waiting = group.fetchOnce();
      if (end === 'resume') ConsumerGroup.prototype.resume.call(group, [{ topic: 't', partitions: [0] }]);
      else if (end === 'seek')
        ConsumerGroup.prototype.seek.call(group, { topic: 't', partition: 0, offset: '3' });
      else await Runner.prototype.stop.call({ consumerGroup: group, running: false });
      expect(await timed(waiting), end).toBeLessThan(PAUSED_WAIT_MS / 2);
      expect(state.fetches).toBe(2);
    }
  });

  it('does not wait when a partition is active', async () => {
    patchKafkajsPausedFetch();
    const { group, state } = member(true);
    await timed(group.fetchOnce());
    state.paused = false;
    expect(await timed(group.fetchOnce())).toBeLessThan(PAUSED_WAIT_MS / 2);
    expect(await timed(group.fetchOnce())).toBeLessThan(PAUSED_WAIT_MS / 2);
  });

  it('patches once, however often it is called', () => {
    patchKafkajsPausedFetch();
    const first = ConsumerGroup.prototype.fetch;
    patchKafkajsPausedFetch();
    expect(ConsumerGroup.prototype.fetch).toBe(first);
  });
});
