import type { Subscription } from './consume/subscriber-consumer.ts';
import { boundedDueAtMs } from './due-at.ts';
import type { SubscriberTopology } from './subscriber-topology.ts';

/** Records in flight per partition at most for batches' sake (twice `maxEvents` below it). */
const MAX_BATCH_WINDOW = 1000;
/** Records in flight per partition of a pull subscriber: the largest lease (`max`) it can fill. */
const PULL_WINDOW = 1000;

/**
 * What the subscriber's consumer reads, and how, from its definition: built once with the
 * topology, and handed to SubscriberConsumer whole.
 */
export function subscriptionOf(topology: SubscriberTopology): Subscription {
  const { definition } = topology;
  return {
    groupId: topology.groupId,
    eventsTopic: topology.eventsTopic,
    noticesTopic: topology.noticesTopic,
    selection: topology.selection,
    // One delivery at a time per key for both; `strict`'s in-place retries are the handler's.
    ordering: definition.ordering === 'none' ? 'none' : 'key',
    fairness: definition.fairness ?? null,
    // Enough records begun per partition to keep the destination's concurrency busy, and with
    // `batch` to fill one batch while another is out; records in flight are not charged to the
    // memory budget, so that is capped (a batch gathers across partitions anyway).
    // A pull subscriber's events wait in its lease book: enough for the largest lease.
    maxInFlightPerPartition: topology.pull
      ? PULL_WINDOW
      : Math.max(
          8,
          definition.concurrency * 2,
          Math.min((definition.batch?.maxEvents ?? 0) * 2, MAX_BATCH_WINDOW),
        ),
    // An unreadable due time is due now: the delivery then dead-letters the record as poison.
    dueAtMs: (record) => (topology.isSourceTopic(record.topic) ? null : boundedDueAtMs(record, Date.now())),
  };
}
