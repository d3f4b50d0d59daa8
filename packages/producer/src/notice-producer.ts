import { noticesTopicName } from '@hookstream/contracts';
import { createKafka, KafkaAccessError, type TopicSpec } from '@hookstream/kafka';
import { EventProducer, type EventProducerOptions } from './event-producer.ts';
import { PublishError } from './publish-error.ts';

/** Notices are few; a week lets a subscriber that was stopped for days still receive them. */
const NOTICE_RETENTION_MS = 7 * 86_400_000;

/**
 * The notices topic of an events topic: one partition, since notices are few and a replica's
 * copies of one notice must meet in one place (the pusher delivers a notice id once), and
 * every notice stays in one order.
 */
export function noticesTopicSpec(eventsTopic: string, replicationFactor: number): TopicSpec {
  return {
    topic: noticesTopicName(eventsTopic),
    partitions: 1,
    replicationFactor,
    config: { 'retention.ms': String(NOTICE_RETENTION_MS), 'cleanup.policy': 'delete' },
  };
}

export interface NoticeProducerOptions extends Omit<EventProducerOptions, 'topic' | 'channel'> {
  /** The events topic whose notices topic is written. */
  readonly eventsTopic: string;
  /** Of the notices topic when it is created (default: up to 3, as many as there are brokers). */
  readonly replicationFactor?: number;
}

/**
 * hookstream's notice path: a producer of the notices channel on the events topic's notices
 * topic, which it creates when missing. Only principals with WRITE on that topic (the pusher's,
 * an operator's) get this far; the ingress's principal has none (docs/security.md).
 */
export async function startNoticeProducer(options: NoticeProducerOptions): Promise<EventProducer> {
  const admin = createKafka({
    ...options.kafka,
    clientId: `${options.clientId ?? 'hookstream'}-admin`,
    quiet: true,
  }).admin();
  try {
    await admin.connect();
    const replication = options.replicationFactor ?? Math.min(3, Math.max(1, await admin.brokerCount()));
    await admin.ensureTopics([noticesTopicSpec(options.eventsTopic, replication)]);
  } catch (err) {
    if (err instanceof KafkaAccessError)
      throw new PublishError('KAFKA_NOT_AUTHORIZED', err.message, { cause: err });
    throw new PublishError('KAFKA_UNAVAILABLE', `cannot create the notices topic: ${String(err)}`, {
      cause: err,
    });
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  return EventProducer.start({
    ...options,
    topic: noticesTopicName(options.eventsTopic),
    channel: 'notices',
  });
}
