import type { Admin } from 'kafkajs';
import { retryRetriable } from './retriable.ts';

export interface TopicSpec {
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  /** Explicit settings such as retention.ms, cleanup.policy, min.insync.replicas. */
  readonly config?: Readonly<Record<string, string>>;
}

/**
 * Creates the topics that do not exist yet, with explicit partitions and settings, and leaves
 * existing ones as they are. Returns the names it created. Safe to call from several processes
 * at once: a topic another process created meanwhile counts as existing.
 */
export async function ensureTopics(admin: Admin, specs: readonly TopicSpec[]): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !existing.has(s.topic));
  if (missing.length === 0) return [];
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({
        topic: s.topic,
        numPartitions: s.partitions,
        replicationFactor: s.replicationFactor,
        configEntries: Object.entries(s.config ?? {}).map(([name, value]) => ({ name, value })),
      })),
    });
  } catch (err) {
    const text = JSON.stringify(err) + String(err);
    // kafkajs reports TOPIC_ALREADY_EXISTS when another process won the race.
    if (/already exists/i.test(text)) return missing.map((s) => s.topic);
    // Created, but the broker asked for leaders had not heard of it yet (several brokers, so
    // metadata spreads with a delay); kafkajs's leader wait only retries LEADER_NOT_AVAILABLE.
    if (!/does not host this topic-partition|UNKNOWN_TOPIC_OR_PARTITION/i.test(text)) throw err;
    await retryRetriable(async () => {
      const { topics } = await admin.fetchTopicMetadata({ topics: missing.map((s) => s.topic) });
      if (topics.some((t) => t.partitions.length === 0 || t.partitions.some((p) => p.leader < 0)))
        throw Object.assign(new Error('topics without leaders yet'), { retriable: true });
    }, 40);
  }
  return missing.map((s) => s.topic);
}
