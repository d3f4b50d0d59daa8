import { createRequire } from 'node:module';

/** kafkajs's own interval for re-checking requests queued behind in-flight ones or a throttle. */
const CHECK_PENDING_MS = 10;

interface RequestQueueLike {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
}

/**
 * kafkajs 2.2.4's request queue re-arms a timer after every check, with a delay of "throttled
 * until" minus now, which is about −1.8e12 ms when nothing is throttled: Node runs it after 1 ms,
 * and the check arms it again, for as long as a connection lives (kafkajs issues 1556 and 1704;
 * the fix, pull request 1667, was never released). An idle consumer group member thus wakes a
 * thousand times a second per connection, and a process hosting hundreds of groups spends most
 * of its CPU there. This replaces that one method with the fixed one: a check is scheduled only
 * while requests wait (every 10 ms, kafkajs's interval) or a broker's throttle is in force; a
 * request that has to wait schedules its own check when it is queued, as before.
 */
export function patchKafkajsIdleLoop(): true {
  const require = createRequire(import.meta.url);
  // Deep path: the class is not exported. Checked by this package's tests against the installed
  // kafkajs, so an upgrade that moves or changes it fails there rather than silently.
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as {
    prototype: RequestQueueLike & { scheduleCheckPendingRequests(): void; hookstreamPatched?: true };
  };
  const proto = RequestQueue.prototype;
  if (proto.hookstreamPatched) return true;
  proto.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueLike) {
    if (this.throttleCheckTimeoutId) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    let delay: number;
    if (this.pending.length > 0) delay = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_MS;
    else if (untilUnthrottled > 0) delay = untilUnthrottled;
    else return;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, delay);
  };
  proto.hookstreamPatched = true;
  return true;
}
