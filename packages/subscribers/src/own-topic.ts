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

/**
 * Raises a numeric setting of an existing topic to at least `atLeast` (a topic created before the
 * setting was part of its spec); a higher value an operator chose stays. Best effort: false when
 * this principal may not read or alter the topic's settings (a pusher's grants do not include
 * them), and the setting is left to the operator (docs/deployment.md).
 */
export async function raiseTopicSetting(
  kafka: KafkaConnection,
  topic: string,
  setting: string,
  atLeast: number,
): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const current = Number((await admin.topicConfig(topic))?.[setting] ?? Number.NaN);
    if (Number.isFinite(current) && current >= atLeast) return true;
    await admin.alterTopicConfig(topic, { [setting]: String(atLeast) });
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect();
  }
}
