import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
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
    patchKafkajsIdleLoop();
    const waiting = queue(2, -1);
    RequestQueue.prototype.scheduleCheckPendingRequests.call(waiting);
    expect(waiting.throttleCheckTimeoutId).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(waiting.checks).toBe(1);
    const throttled = queue(0, Date.now() + 50);
    RequestQueue.prototype.scheduleCheckPendingRequests.call(throttled);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(throttled.checks).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(throttled.checks).toBe(1);
  });

  it('patches once, however often it is called', () => {
    patchKafkajsIdleLoop();
    const first = RequestQueue.prototype.scheduleCheckPendingRequests;
    patchKafkajsIdleLoop();
    expect(RequestQueue.prototype.scheduleCheckPendingRequests).toBe(first);
  });
});
