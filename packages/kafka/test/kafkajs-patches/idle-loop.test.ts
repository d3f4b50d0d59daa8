import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { patchKafkajsIdleLoop } from '../../src/kafkajs-patches/idle-loop.ts';

interface QueueState {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checks: number;
  checkPendingRequests(): void;
}

const require = createRequire(import.meta.url);
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as {
  prototype: { scheduleCheckPendingRequests(this: QueueState): void };
};

function queue(pending: number, throttledUntil: number): QueueState {
  return {
    throttledUntil,
    throttleCheckTimeoutId: null,
    pending: Array.from({ length: pending }),
    checks: 0,
    checkPendingRequests() {
      this.checks++;
    },
  };
}

describe('patchKafkajsIdleLoop', () => {
  it('arms no timer for an idle, unthrottled connection (kafkajs re-armed one every millisecond)', async () => {
    patchKafkajsIdleLoop();
    const idle = queue(0, -1);
    RequestQueue.prototype.scheduleCheckPendingRequests.call(idle);
    expect(idle.throttleCheckTimeoutId).toBeNull();
  });

  it('still checks queued requests (every 10 ms) and waits out a broker throttle', async () => {
    // On a fake clock: with real timers a stall between reading Date.now() for the throttle and
    // arming its timer shortened the delay the test then measured against its own sleeps.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      patchKafkajsIdleLoop();
      const waiting = queue(2, -1);
      RequestQueue.prototype.scheduleCheckPendingRequests.call(waiting);
      expect(waiting.throttleCheckTimeoutId).not.toBeNull();
      await vi.advanceTimersByTimeAsync(9);
      expect(waiting.checks).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(waiting.checks).toBe(1);
      const throttled = queue(0, Date.now() + 50);
      RequestQueue.prototype.scheduleCheckPendingRequests.call(throttled);
      await vi.advanceTimersByTimeAsync(49);
      expect(throttled.checks).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(throttled.checks).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('patches once, however often it is called', () => {
    patchKafkajsIdleLoop();
    const first = RequestQueue.prototype.scheduleCheckPendingRequests;
    patchKafkajsIdleLoop();
    expect(RequestQueue.prototype.scheduleCheckPendingRequests).toBe(first);
  });
});
