import {
  dlqTopicName,
  replayLogTopicName,
  retryTopicName,
  type SubscriberDefinition,
  subscriberGroupId,
} from '@hookstream/contracts';

/** A subscriber's own Kafka names: its group (the ledger), retry tiers, DLQ and replay log. */
export interface SubscriberTopics {
  readonly group: string;
  readonly tiers: readonly { readonly tier: number; readonly topic: string; readonly delayMs: number }[];
  readonly dlq: string;
  readonly replayLog: string;
}

/** Derived from the definition, as the pusher derives them. Pure. */
export function subscriberTopics(definition: SubscriberDefinition): SubscriberTopics {
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
