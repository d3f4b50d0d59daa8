import { replayLogTopicName, type SubscriberName } from '@hookstream/contracts';
import type { TopicSpec } from '@hookstream/kafka';

const DAY_MS = 86_400_000;
/**
 * Entries must outlive the DLQ records they name (30 days by default), or an old DLQ record
 * could be replayed a second time; 90 days leaves room for a longer DLQ retention.
 */
export const REPLAY_LOG_RETENTION_MS = 90 * DAY_MS;

/**
 * The subscriber's replay log: compacted (one entry per DLQ location is all that matters) and
 * deleted after the retention, with settings spelled out rather than left to broker defaults.
 * One partition: the log is small and always read whole.
 */
export function replayLogTopic(subscriber: SubscriberName, brokers: number): TopicSpec {
  const replicationFactor = Math.min(3, Math.max(1, brokers));
  return {
    topic: replayLogTopicName(subscriber),
    partitions: 1,
    replicationFactor,
    config: {
      'cleanup.policy': 'compact,delete',
      'retention.ms': String(REPLAY_LOG_RETENTION_MS),
      'segment.ms': String(DAY_MS),
      'min.compaction.lag.ms': '0',
      'min.insync.replicas': String(Math.min(2, replicationFactor)),
    },
  };
}
