import {
  noticesTopicName,
  type SubscriberDefinition,
  subscriberGroupId,
  takesNotices,
} from '@hookstream/contracts';
import {
  commitGroupStart,
  type KafkaAdmin,
  type KafkaConnection,
  type StartedFrom,
  type StartFrom,
} from '@hookstream/kafka';

/** A definition's `start` as the driver takes it. */
export function startFromOf(start: SubscriberDefinition['start']): StartFrom {
  return start === 'earliest' || start === 'latest' ? start : { timestampMs: Date.parse(start) };
}

/**
 * Commits a new subscriber's start position (its events, and its notices when it takes them)
 * when it is made, before any catalog reader sees it: a `latest` start is then the moment it was
 * made, in every mode, not whenever a fleet or a first lease gets to it. A group that already has
 * a ledger keeps it; null when the events topic does not exist yet.
 */
export function commitSubscriberStart(
  kafka: KafkaConnection,
  admin: KafkaAdmin,
  definition: SubscriberDefinition,
  eventsTopic: string,
): Promise<StartedFrom | null> {
  return commitGroupStart(kafka, admin, {
    groupId: subscriberGroupId(definition.name),
    topic: eventsTopic,
    start: startFromOf(definition.start),
    alsoTopics: takesNotices(definition) ? [noticesTopicName(eventsTopic)] : [],
  });
}
