import { z } from 'zod';
import { SubscriberName } from './topics.ts';

/**
 * Where pusher processes say what they run: compacted, keyed by instance name, one record per
 * instance every few seconds and a tombstone when it stops cleanly. `subscribers list` reads it
 * for the instances of each subscriber and the age of the oldest record they hold.
 */
export const INSTANCE_STATUS_TOPIC = 'hookstream.instances';

const Timestamp = z.iso.datetime({ offset: true });

export const InstanceSubscriberStatus = z.object({
  name: SubscriberName,
  state: z.enum(['starting', 'running', 'failed']),
  /** Kafka timestamp of the oldest record this instance holds unsettled; null: it holds none. */
  oldestUnsettledAt: Timestamp.nullable(),
  error: z.string().max(500).optional(),
  /** The destination's circuit breaker as this instance sees it (absent: older instances). */
  breaker: z.enum(['closed', 'open', 'half-open']).optional(),
  /** HTTP attempts and 2xx answers of the last windowMs on this instance (absent: older instances). */
  recent: z
    .object({
      windowMs: z.number().int().min(1000).max(3_600_000),
      attempts: z.number().int().nonnegative(),
      delivered: z.number().int().nonnegative(),
    })
    .optional(),
});
export type InstanceSubscriberStatus = z.infer<typeof InstanceSubscriberStatus>;

export const InstanceStatus = z.object({
  version: z.literal(1),
  /** Unique among running instances: `--instance`, else host:pid. */
  instance: z.string().min(1).max(200),
  host: z.string().max(255),
  pid: z.number().int().nonnegative(),
  startedAt: Timestamp,
  /** When this record was written; a record older than three periods is a dead instance's. */
  at: Timestamp,
  everyMs: z.number().int().min(100).max(3_600_000),
  subscribers: z.array(InstanceSubscriberStatus).max(100_000),
  /**
   * The catalog record versions this instance reads (absent: an instance older than version 3,
   * which reads 1 and 2). `subscribers apply` refuses a record some running instance cannot read.
   */
  recordVersions: z.array(z.number().int().min(1).max(1000)).max(100).optional(),
});
export type InstanceStatus = z.infer<typeof InstanceStatus>;

/** An instance that stopped writing for three periods (killed, frozen) no longer counts. */
export function isInstanceStale(status: InstanceStatus, nowMs: number): boolean {
  return nowMs - Date.parse(status.at) > 3 * status.everyMs;
}

/** The record versions an instance reads: what it reports, or 1 and 2 for one too old to say. */
export function recordVersionsOf(status: InstanceStatus): readonly number[] {
  return status.recordVersions ?? [1, 2];
}
