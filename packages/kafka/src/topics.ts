import type { Admin } from 'kafkajs';

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
    // kafkajs reports TOPIC_ALREADY_EXISTS when another process won the race.
    if (!(err instanceof Error && /already exists/i.test(JSON.stringify(err) + err.message))) throw err;
  }
  return missing.map((s) => s.topic);
}
