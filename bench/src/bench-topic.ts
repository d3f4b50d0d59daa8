import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type KafkaSettings, noticesTopicName, subscriberGroupId } from '@hookstream/contracts';
import { createKafka, type KafkaAdmin, type KafkaConnection } from '@hookstream/kafka';
import { SubscriberCatalog } from '@hookstream/subscribers';

/**
 * Runs `fn` with a fresh events topic of its own, then deletes that topic and what the
 * benchmark's subscribers left on the shared broker: their retry/DLQ topics, groups, and the
 * registrations their pushers wrote in the catalog.
 */
export async function withBenchTopic<T>(
  kafka: KafkaSettings,
  partitions: number,
  subscribers: readonly string[],
  fn: (topic: string) => Promise<T>,
): Promise<T> {
  const topic = `hookstream-bench-${randomUUID().slice(0, 8)}`;
  const connection = createKafka({ ...kafka, clientId: 'hookstream-bench', quiet: true });
  const admin = connection.admin();
  await admin.connect();
  try {
    // Longer than a subscriber's default retention warning (24 h), as a real events topic is: with
    // less, a fleet's retention watch finds every subscriber with owed events at risk and publishes
    // a notice for each at every look, which the figures would then measure. Deleted afterwards.
    await admin.ensureTopics([
      { topic, partitions, replicationFactor: 1, config: { 'retention.ms': String(7 * 86_400_000) } },
    ]);
    await leadersElected(admin, topic);
    return await fn(topic);
  } finally {
    const existing = await admin.listTopics().catch(() => [] as string[]);
    const own = existing.filter(
      (t) =>
        t === topic ||
        t === noticesTopicName(topic) ||
        subscribers.some((s) => t.startsWith(`hookstream.sub.${s}.`)),
    );
    await admin.deleteTopics(own).catch(() => undefined);
    if (subscribers.length > 0)
      await admin.deleteGroups(subscribers.map((s) => subscriberGroupId(s))).catch(() => undefined);
    await removeRegistrations(connection, [topic]).catch(() => undefined);
    await admin.disconnect();
  }
}

/**
 * Waits until every partition of a new topic has a leader: a producer writing the moment the
 * topic was created can get "This server does not host this topic-partition".
 */
async function leadersElected(admin: KafkaAdmin, topic: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const partitions = (await admin.topicPartitions(topic).catch(() => null)) ?? [];
    if (partitions.length > 0 && partitions.every((p) => p.leader >= 0)) return;
    await sleep(100);
  }
}

/** A subscriber name unique to this run (group and topic names derive from it). */
export function benchSubscriberName(kind: string): string {
  return `bench-${kind}-${randomUUID().slice(0, 8)}`;
}

/**
 * Deletes what a benchmark's subscribers left once their pushers stopped: their groups, and their
 * own topics (`hookstream.sub.<name>.`: retry tiers and the DLQ, made when a pusher starts).
 */
export async function removeBenchSubscribers(kafka: KafkaSettings, names: readonly string[]): Promise<void> {
  const admin = createKafka({ ...kafka, clientId: 'hookstream-bench', quiet: true }).admin();
  await admin.connect();
  try {
    await admin.deleteGroups(names.map((n) => subscriberGroupId(n))).catch(() => undefined);
    const own = (await admin.listTopics().catch(() => [] as string[])).filter((t) =>
      names.some((n) => t.startsWith(`hookstream.sub.${n}.`)),
    );
    await admin.deleteTopics(own).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
}

/** Deletes groups a benchmark made (a drain's subscriber, a reader) once their members left. */
export function deleteBenchGroups(kafka: KafkaSettings, groups: readonly string[]): Promise<void> {
  return removeBenchTopics(kafka, [], groups);
}

/**
 * Deletes what a benchmark made on the shared broker: its groups, then its topics with the
 * notices topic a pusher or ingress made beside each, and the registrations on them. Best
 * effort: a figure is never lost to it.
 */
export async function removeBenchTopics(
  kafka: KafkaSettings,
  topics: readonly string[],
  groups: readonly string[] = [],
): Promise<void> {
  const connection = createKafka({ ...kafka, clientId: 'hookstream-bench', quiet: true });
  const admin = connection.admin();
  await admin.connect();
  try {
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const existing = new Set(await admin.listTopics().catch(() => [] as string[]));
    const own = topics.flatMap((t) => [t, noticesTopicName(t)]).filter((t) => existing.has(t));
    await admin.deleteTopics(own).catch(() => undefined);
    await removeRegistrations(connection, topics).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Tombstones the registrations pushers wrote in the catalog for their subscribers of `topics`:
 * live records there are read by every fleet and management API on the stack for as long as the
 * catalog keeps them, and a test run takes any that carries its tag for its own leftover.
 */
async function removeRegistrations(connection: KafkaConnection, topics: readonly string[]): Promise<void> {
  if (topics.length === 0) return;
  const catalog = new SubscriberCatalog(connection);
  const { registrations } = await catalog.read();
  const prefixes = topics.map((t) => `${t}/`);
  await catalog.tombstone(
    [...registrations.values()].flat().filter((key) => prefixes.some((p) => key.startsWith(p))),
  );
}
