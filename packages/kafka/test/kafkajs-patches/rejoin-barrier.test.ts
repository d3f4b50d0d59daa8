import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  holdNextRejoin,
  holdRejoinsOf,
  patchKafkajsRejoinBarrier,
} from '../../src/kafkajs-patches/rejoin-barrier.ts';

const require = createRequire(import.meta.url);
const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as {
  prototype: { joinAndSync(this: unknown): Promise<void> };
};

describe('patchKafkajsRejoinBarrier', () => {
  it('holds the rejoin that follows a REBALANCING listener until its barrier settles, and only that one', async () => {
    patchKafkajsRejoinBarrier();
    const order: string[] = [];
    // kafkajs's joinAndSync runs the join and sync inside its retrier: a fake retrier stands for them.
    const joined: unknown[] = [];
    const fake = Object.create(ConsumerGroup.prototype) as { retrier: unknown };
    fake.retrier = async () => void joined.push('joined');
    let release: () => void = () => undefined;
    holdNextRejoin(
      new Promise<void>((resolve) => {
        release = () => {
          order.push('barrier settled');
          resolve();
        };
      }),
    );
    const rejoin = ConsumerGroup.prototype.joinAndSync.call(fake).then(() => order.push('rejoined'));
    await new Promise((r) => setImmediate(r));
    expect(joined).toEqual([]);
    release();
    await rejoin;
    expect(order).toEqual(['barrier settled', 'rejoined']);
    expect(joined).toEqual(['joined']);
    // The next rejoin (no REBALANCING listener before it) goes ahead at once.
    await ConsumerGroup.prototype.joinAndSync.call(fake);
    expect(joined).toEqual(['joined', 'joined']);
  });

  it('lets the rejoin go ahead when the barrier fails', async () => {
    patchKafkajsRejoinBarrier();
    const fake = Object.create(ConsumerGroup.prototype) as { retrier: unknown };
    let joined = 0;
    fake.retrier = async () => void joined++;
    holdNextRejoin(Promise.reject(new Error('commit refused')));
    await ConsumerGroup.prototype.joinAndSync.call(fake);
    expect(joined).toBe(1);
  });

  it("holds a rejoin kafkajs starts on its own (stale metadata) for the member's own barrier, while its id is registered", async () => {
    patchKafkajsRejoinBarrier();
    const member = Object.create(ConsumerGroup.prototype) as { retrier: unknown; memberId: string | null };
    const joined: string[] = [];
    member.retrier = async () => void joined.push('joined');
    member.memberId = 'member-1';
    const asked: string[] = [];
    let release: () => void = () => undefined;
    const unregister = holdRejoinsOf('member-1', () => {
      asked.push('own');
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    try {
      const rejoin = ConsumerGroup.prototype.joinAndSync.call(member);
      await new Promise((r) => setImmediate(r));
      expect(asked).toEqual(['own']);
      expect(joined).toEqual([]);
      release();
      await rejoin;
      expect(joined).toEqual(['joined']);
      // A REBALANCING listener's barrier is that rejoin's: the member's own is not asked besides.
      holdNextRejoin(Promise.resolve());
      await ConsumerGroup.prototype.joinAndSync.call(member);
      expect(asked).toEqual(['own']);
      // After UNKNOWN_MEMBER_ID kafkajs clears the id before it rejoins: the last join's id holds it.
      member.memberId = null;
      const forgotten = ConsumerGroup.prototype.joinAndSync.call(member);
      await new Promise((r) => setImmediate(r));
      expect(asked).toEqual(['own', 'own']);
      release();
      await forgotten;
      // A group object that never joined (the first join; a crash restart's new one): at once.
      const fresh = Object.create(ConsumerGroup.prototype) as { retrier: unknown; memberId: null };
      fresh.retrier = async () => void joined.push('fresh');
      fresh.memberId = null;
      await ConsumerGroup.prototype.joinAndSync.call(fresh);
      // Once unregistered: at once.
      member.memberId = 'member-1';
      unregister();
      await ConsumerGroup.prototype.joinAndSync.call(member);
      expect(asked).toEqual(['own', 'own']);
      expect(joined).toEqual(['joined', 'joined', 'joined', 'fresh', 'joined']);
    } finally {
      unregister();
    }
  });
});
