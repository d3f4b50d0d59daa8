import { z } from 'zod';

/** Where every published event goes unless configured otherwise. */
export const DEFAULT_EVENTS_TOPIC = 'events';

/** An events topic's name: what Kafka allows in a topic name. */
export const EventsTopicName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,249}$/, "1 to 249 letters, digits, '.', '_' or '-' (a Kafka topic name)");

/**
 * A subscriber's name: part of its consumer group and topic names, so restricted to characters
 * Kafka allows in topic names and short enough for the longest derived name.
 */
export const SubscriberName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,99}$/,
    'lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
  );
export type SubscriberName = z.infer<typeof SubscriberName>;

/**
 * A name as Kafka compares topic names: it refuses a topic whose name differs from an existing
 * one only by '.' against '_' (the two collide in its metric names). Two subscribers whose names
 * share this key would need the same tier, DLQ and replay topics, so one name holds both.
 */
export function topicCollisionKey(name: string): string {
  return name.replaceAll('.', '_');
}

const PREFIX = 'hookstream.sub';

/** The consumer group whose committed offsets are the subscriber's acknowledgement ledger. */
export function subscriberGroupId(name: SubscriberName): string {
  return `${PREFIX}.${name}`;
}

/** Retry tier n (1-based) of a subscriber. */
export function retryTopicName(name: SubscriberName, tier: number): string {
  if (!Number.isInteger(tier) || tier < 1)
    throw new RangeError(`retry tier must be a positive integer, got ${tier}`);
  return `${PREFIX}.${name}.retry.${tier}`;
}

/**
 * The retry tier (1-based) a topic is of this subscriber, whether or not its definition still
 * lists it; null for any other topic.
 */
export function retryTierOf(name: SubscriberName, topic: string): number | null {
  const prefix = `${PREFIX}.${name}.retry.`;
  if (!topic.startsWith(prefix)) return null;
  const rest = topic.slice(prefix.length);
  return /^[1-9][0-9]{0,8}$/.test(rest) ? Number(rest) : null;
}

export function dlqTopicName(name: SubscriberName): string {
  return `${PREFIX}.${name}.dlq`;
}

/** Records of each DLQ record replayed (compacted, keyed by DLQ location) so a replay never repeats. */
export function replayLogTopicName(name: SubscriberName): string {
  return `${PREFIX}.${name}.replays`;
}

/** Every replay's transactional id starts so: the pusher's grant for the console's replays. */
export const REPLAY_TRANSACTIONAL_ID_PREFIX = 'hookstream.replay.';

/**
 * The Kafka transactional id every replay of a subscriber writes as: one at a time, since taking
 * it fences the writer before (docs/security.md, "Replays: one at a time").
 */
export function replayTransactionalId(name: SubscriberName): string {
  return `${REPLAY_TRANSACTIONAL_ID_PREFIX}${name}`;
}

/** Every subscriber group shares this prefix, so tools can list subscribers from Kafka. */
export const SUBSCRIBER_GROUP_PREFIX = `${PREFIX}.`;
