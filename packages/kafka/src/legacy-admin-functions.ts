import type { CommittedOffset } from './group-offsets.ts';
import type { KafkaAdmin } from './kafka-admin.ts';
import type { TopicLag } from './lag.ts';
import type { LeaderWait, TopicSpec } from './topics.ts';

// Free-function forms of KafkaAdmin methods that the pusher and the ingress still call. They
// take the facade's admin already, so those services compile unchanged; new code calls the
// methods.

/** @deprecated legacy, removed once pusher/ingress/producer use KafkaConnection: use admin.ensureTopics. */
export function ensureTopics(
  admin: KafkaAdmin,
  specs: readonly TopicSpec[],
  wait: LeaderWait = {},
): Promise<string[]> {
  return admin.ensureTopics(specs, wait);
}

/** @deprecated legacy, removed once pusher/ingress/producer use KafkaConnection: use admin.committedOffsets. */
export function fetchCommittedOffsets(
  admin: KafkaAdmin,
  groupId: string,
  topic: string,
): Promise<CommittedOffset[]> {
  return admin.committedOffsets(groupId, topic);
}

/** @deprecated legacy, removed once pusher/ingress/producer use KafkaConnection: use admin.groupLag. */
export function fetchGroupLag(
  admin: KafkaAdmin,
  groupId: string,
  topics: readonly string[],
): Promise<TopicLag[]> {
  return admin.groupLag(groupId, topics);
}

/** @deprecated legacy, removed once pusher/ingress/producer use KafkaConnection: use admin.topicDepth. */
export function fetchTopicDepth(admin: KafkaAdmin, topic: string): Promise<number> {
  return admin.topicDepth(topic);
}
