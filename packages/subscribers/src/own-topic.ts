import type { KafkaConnection, TopicSpec } from '@hookstream/kafka';

/** A topic the catalog side keeps, as ensureTopics takes it, for a replication factor. */
type TopicSpecFor = (
  replicationFactor: number,
) => Parameters<ReturnType<KafkaConnection['admin']>['ensureTopics']>[0][number];

/** Creates the topic when missing, replicated up to 3 times, as many as there are brokers. */
export async function ensureOwnTopic(kafka: KafkaConnection, specFor: (replicationFactor: number) => TopicSpec): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const replication = Math.min(3, Math.max(1, await admin.brokerCount()));
    await admin.ensureTopics([specFor(replication)]);
  } finally {
    await admin.disconnect();
  }
}
