import { z } from 'zod';

/**
 * How the receiver (mis)behaves; changeable at run time through POST /control. Every number is
 * bounded: a timer past 2^31 ms fires at once, and a huge count is a typo, not a test.
 */
export const ReceiverBehaviour = z.strictObject({
  /** Above this many requests in the last second, answer 429 with Retry-After. */
  rateLimitPerSecond: z.number().int().positive().max(1_000_000).nullable().default(null),
  /** Retry-After of every 429 (rate limit, or failStatus 429). */
  retryAfterSeconds: z.number().int().min(0).max(3600).default(1),
  /** Answer failStatus to the first failTimes requests of every event. */
  failTimes: z.number().int().min(0).max(1000).default(0),
  failStatus: z.number().int().min(100).max(599).default(500),
  /** failTimes applies only to these events; absent: to every event. */
  failEventIds: z.array(z.string().min(1).max(200)).max(1000).optional(),
  /** Answer every request with this status instead of 204 (e.g. 400 to test terminal outcomes). */
  fixedStatus: z.number().int().min(100).max(599).nullable().default(null),
  /**
   * Answer with the request's headers as a JSON body (credentials first), as some endpoints echo what they got: for
   * tests that what hookstream keeps of an answer never shows a credential the request carried.
   */
  echoHeaders: z.boolean().default(false),
  /** Wait this long before answering. */
  delayMs: z.number().int().min(0).max(600_000).default(0),
});
export type ReceiverBehaviour = z.infer<typeof ReceiverBehaviour>;
