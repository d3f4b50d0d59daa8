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

/** Where a numeric topic setting must be: at least one value, or at most one. */
export type SettingBound = { readonly atLeast: number } | { readonly atMost: number };

/**
 * Brings a numeric setting of an existing topic within `bound` (a topic created before the
 * setting was part of its spec); a value an operator chose within it stays. Best effort: false
 * when this principal may not read or alter the topic's settings (a pusher's grants do not
 * include them), and the setting is left to the operator (docs/deployment.md).
 */
export async function boundTopicSetting(
  kafka: KafkaConnection,
  topic: string,
  setting: string,
  bound: SettingBound,
): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const current = Number((await admin.topicConfig(topic))?.[setting] ?? Number.NaN);
    const wanted = 'atLeast' in bound ? bound.atLeast : bound.atMost;
    const within = 'atLeast' in bound ? current >= wanted : current <= wanted;
    if (Number.isFinite(current) && within) return true;
    await admin.alterTopicConfig(topic, { [setting]: String(wanted) });
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect();
  }
}
