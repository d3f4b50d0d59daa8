import type { KafkaConnection, TopicSpec } from '@hookstream/kafka';

/** Creates the topic when missing, replicated up to 3 times, as many as there are brokers. */
export async function ensureOwnTopic(
  kafka: KafkaConnection,
  specFor: (replicationFactor: number) => TopicSpec,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const replication = Math.min(3, Math.max(1, await admin.brokerCount()));
    await admin.ensureTopics([specFor(replication)]);
  } finally {
    await admin.disconnect();
  }
}
