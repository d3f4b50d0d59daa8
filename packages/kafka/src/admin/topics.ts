import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import { isUnknownTopic } from '../errors.ts';
import { listTopicNames } from './topic-info.ts';

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
export async function ensureTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
  wait: LeaderWait = {},
): Promise<string[]> {
  const existing = new Set(await listTopicNames(admin));
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
    // kafkajs's wait for leaders gives up on UNKNOWN_TOPIC_OR_PARTITION, which a broker of a
    // multi-broker cluster answers until the new topic's metadata reaches it: wait on here.
    if (isUnknownTopic(err))
      await leadersElected(
        admin,
        missing.map((s) => s.topic),
        wait,
      );
    // kafkajs reports TOPIC_ALREADY_EXISTS when another process won the race.
    else if (!(err instanceof Error && /already exists/i.test(JSON.stringify(err) + err.message))) throw err;
  }
  return missing.map((s) => s.topic);
}

export interface LeaderWait {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/** Until every partition of the topics has a leader; metadata errors meanwhile mean "not yet". */
async function leadersElected(
  admin: Admin,
  topics: readonly string[],
  { timeoutMs = 30_000, intervalMs = 100 }: LeaderWait,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let problem: unknown;
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
      const led = topics.every((name) => {
        const partitions = metadata.topics.find((t) => t.name === name)?.partitions ?? [];
        return partitions.length > 0 && partitions.every((p) => p.leader >= 0);
      });
      if (led) return;
      problem = new Error(`no leader yet for every partition of ${topics.join(', ')}`);
    } catch (err) {
      problem = err;
    }
    if (Date.now() >= deadline) throw problem;
    await sleep(intervalMs);
  }
}
