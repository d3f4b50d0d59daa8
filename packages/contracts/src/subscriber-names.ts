import type { SubscriberDefinition } from './subscriber.ts';
import { dlqTopicName, replayLogTopicName, retryTopicName, subscriberGroupId } from './topics.ts';

/** A subscriber's own Kafka names: its group (the ledger), retry tiers, DLQ and replay log. */
export interface SubscriberNames {
  readonly group: string;
  readonly tiers: readonly { readonly tier: number; readonly topic: string; readonly delayMs: number }[];
  readonly dlq: string;
  readonly replayLog: string;
}

/** Derived from the definition once; the pusher, the catalog and the tools all use these. */
export function subscriberNames(definition: SubscriberDefinition): SubscriberNames {
  const name = definition.name;
  return {
    group: subscriberGroupId(name),
    tiers: definition.retry.delaysMs.map((delayMs, i) => ({
      tier: i + 1,
      topic: retryTopicName(name, i + 1),
      delayMs,
    })),
    dlq: dlqTopicName(name),
    replayLog: replayLogTopicName(name),
  };
}
