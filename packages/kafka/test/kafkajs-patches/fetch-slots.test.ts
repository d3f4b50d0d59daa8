import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  FETCH_SLOT_WAIT_MS,
  FetchSlots,
  patchKafkajsFetchSlots,
} from '../../src/kafkajs-patches/fetch-slots.ts';

const require = createRequire(import.meta.url);
const Broker = require('kafkajs/src/broker/index.js') as {
  prototype: { fetch: (this: unknown, ...args: unknown[]) => Promise<unknown> };
};

describe('fetch-slots', () => {
  it("wraps kafkajs's Broker.fetch (the deep path still exists)", () => {
    expect(patchKafkajsFetchSlots()).toBe(true);
    expect(Broker.prototype.fetch.name).toBe('slottedFetch');
  });

  describe('FetchSlots', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('runs `size` calls at once; the next waits for a slot, or the wait bound, then runs anyway', async () => {
      const slots = new FetchSlots(3, FETCH_SLOT_WAIT_MS);
      const answers: (() => void)[] = [];
      let running = 0;
      const fetch = () =>
        slots.run(
          () =>
            new Promise<void>((resolve) => {
              running++;
              answers.push(() => {
                running--;
                resolve();
              });
            }),
        );
      const calls = Array.from({ length: 5 }, fetch);
      await vi.advanceTimersByTimeAsync(0);
      expect(running).toBe(3);
      answers.shift()?.();
      await vi.advanceTimersByTimeAsync(0);
      // The freed slot went to the next in line; one still waits.
      expect(running).toBe(3);
      await vi.advanceTimersByTimeAsync(FETCH_SLOT_WAIT_MS - 1);
      expect(running).toBe(3);
      await vi.advanceTimersByTimeAsync(1);
      // Its wait ran out: it goes ahead without a slot rather than hold its member's heartbeats.
      expect(running).toBe(4);
      for (const answer of answers.splice(0)) answer();
      await Promise.all(calls);
      // Every slot came back, the late call's too: three run at once again, no more.
      const again = Array.from({ length: 4 }, fetch);
      await vi.advanceTimersByTimeAsync(0);
      expect(running).toBe(3);
      for (;;) {
        const answer = answers.shift();
        if (!answer) break;
        answer();
        await vi.advanceTimersByTimeAsync(0);
      }
      await Promise.all(again);
      expect(running).toBe(0);
    });

    it('frees the slot when the call fails', async () => {
      const slots = new FetchSlots(1, FETCH_SLOT_WAIT_MS);
      await expect(slots.run(() => Promise.reject(new Error('broker gone')))).rejects.toThrow('broker gone');
      let ran = false;
      await slots.run(async () => {
        ran = true;
      });
      expect(ran).toBe(true);
    });
  });
});
