import { EventId } from '@hookstream/contracts';
import { z } from 'zod';

/** The most events one lease holds. */
export const MAX_LEASE_EVENTS = 1000;

/** A whole number of a query string, bounded. */
const bounded = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/** `GET /v1/subscribers/{name}/events`: how many, how long to wait for the first, how long to hold them. */
export const LeaseQuery = z.object({
  /** Events at most (1–1000). */
  max: bounded(1, MAX_LEASE_EVENTS, 100),
  /** Seconds to wait for a first event when none waits (0–30): a long poll. */
  wait: bounded(0, 30, 0),
  /** Seconds the events are held for the caller before they can be leased again (5–600). */
  lease: bounded(5, 600, 30),
});

/** A cursor a lease hands out: `<topic>:<partition>:<offset>`. */
const Cursor = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,249}:[0-9]{1,10}:[0-9]{1,19}$/, 'a cursor a lease handed out');

export const LeaseAnswer = z.object({
  /** Null when no event came within the wait. */
  lease: z.object({ id: z.string(), expiresAt: z.string() }).nullable(),
  /** Each event as push would send it alone (`event_id`, `attempt`, … and its data). */
  events: z.array(z.record(z.string(), z.unknown())),
  /** One per topic-partition of its events: the highest offset the lease holds there. */
  cursors: z.array(z.string()),
});

const LeaseId = z.string().regex(/^lease_[A-Za-z0-9_-]{1,64}$/, 'a lease id');

/** Which events of a lease: by cursor, by event id, or (neither) all of them. */
const Selection = {
  lease: LeaseId,
  cursors: z.array(Cursor).min(1).max(MAX_LEASE_EVENTS).optional(),
  eventIds: z.array(EventId).min(1).max(MAX_LEASE_EVENTS).optional(),
};

export const AckBody = z.strictObject(Selection);
export const AckAnswer = z.object({ acked: z.number() });

export const NackBody = z.strictObject({
  ...Selection,
  /**
   * Absent: leasable again at once. Set: down the subscriber's retry schedule (a tier; the DLQ at
   * its ceilings), back no sooner than this many milliseconds (at most 7 days).
   */
  delayMs: z
    .number()
    .int()
    .min(1)
    .max(7 * 86_400_000)
    .optional(),
});
export const NackAnswer = z.object({ nacked: z.number() });
