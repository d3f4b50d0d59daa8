import { EventSelection } from '@hookstream/contracts';
import type { Subscription } from '@hookstream/pusher-core';

/**
 * A subscription of the consumer's own tests: a group on one topic, every record taken unless
 * `eventTypes` says otherwise, no notices, no tiers, no fairness.
 */
export function plainSubscription(options: {
  readonly groupId: string;
  readonly topic: string;
  readonly ordering?: 'none' | 'key';
  readonly eventTypes?: readonly string[];
  readonly maxInFlightPerPartition?: number;
}): Subscription {
  return {
    groupId: options.groupId,
    eventsTopic: options.topic,
    noticesTopic: null,
    selection: EventSelection.of({ eventTypes: options.eventTypes }),
    ordering: options.ordering ?? 'none',
    fairness: null,
    maxInFlightPerPartition: options.maxInFlightPerPartition ?? 8,
    dueAtMs: () => null,
  };
}
