import { ATTEMPT_LOG_TOPIC } from '@hookstream/contracts';
import type { KafkaAdmin } from '@hookstream/kafka';

/** The pusher creates the attempt log; on a stack where none ran yet, a test does, alike. */
export async function ensureAttemptLog(admin: KafkaAdmin): Promise<void> {
  await admin.ensureTopics([
    {
      topic: ATTEMPT_LOG_TOPIC,
      partitions: 6,
      replicationFactor: 1,
      config: { 'retention.ms': String(7 * 86_400_000), 'cleanup.policy': 'delete' },
    },
  ]);
}
