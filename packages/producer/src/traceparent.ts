import { randomFillSync } from 'node:crypto';

// The check is the contract's: the pusher judges the header of a consumed record the same way.
export { isTraceparent } from '@hookstream/contracts';

/**
 * A new sampled W3C traceparent, used when the caller brings no trace context and no tracing
 * SDK makes one, so every event still starts a trace that deliveries join. Ids are cut from a
 * pool of random bytes refilled 170 traceparents at a time: one crypto call per event (or two
 * randomUUIDs) showed in the ingress's profile. An all-zero id, which W3C forbids, is drawn
 * again.
 */
export function newTraceparent(): string {
  for (;;) {
    if (poolAt + TRACEPARENT_BYTES > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const hex = pool.toString('hex', poolAt, poolAt + TRACEPARENT_BYTES);
    poolAt += TRACEPARENT_BYTES;
    const trace = hex.slice(0, 32);
    const span = hex.slice(32);
    if (trace !== ZERO_TRACE && span !== ZERO_SPAN) return `00-${trace}-${span}-01`;
  }
}

/** 16 bytes of trace id and 8 of span id. */
const TRACEPARENT_BYTES = 24;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const pool = Buffer.allocUnsafe(TRACEPARENT_BYTES * 170);
let poolAt = pool.length;
