import { dlqTopicName, retryTopicName, type SubscriberDefinition } from '@hookstream/contracts';
import type { TopicSpec } from '@hookstream/kafka';

const DAY_MS = 86_400_000;
/** How long dead letters stay replayable. */
export const DLQ_RETENTION_MS = 30 * DAY_MS;

/**
 * The subscriber's own topics: one retry tier per entry of retry.delaysMs, and the DLQ. Tiers
 * keep records well past the age ceiling (an expired record must still be there to be
 * dead-lettered); the DLQ keeps them for the replay window. Settings are explicit, not broker
 * defaults, so a broker's configuration cannot silently shorten them.
 */
export function subscriberTopics(definition: SubscriberDefinition, partitions: number): TopicSpec[] {
  const longestDelay = Math.max(...definition.retry.delaysMs);
  const tierRetention = Math.max(definition.retry.maxAgeMs + longestDelay, 7 * DAY_MS);
  const tiers = definition.retry.delaysMs.map((_, i) => ({
    topic: retryTopicName(definition.name, i + 1),
    partitions,
    replicationFactor: 1,
    config: { 'retention.ms': String(tierRetention), 'cleanup.policy': 'delete' },
  }));
  return [
    ...tiers,
    {
      topic: dlqTopicName(definition.name),
      partitions,
      replicationFactor: 1,
      config: {
        'retention.ms': String(Math.max(DLQ_RETENTION_MS, tierRetention)),
        'cleanup.policy': 'delete',
      },
    },
  ];
}
