import { describe, expect, it } from 'vitest';
import { REPLAY_LOG_RETENTION_MS, replayLogTopic } from '../src/replay-log-topic.ts';

describe('replayLogTopic', () => {
  it('is compacted with explicit retention, one partition, named for the subscriber', () => {
    expect(replayLogTopic('billing', 1)).toEqual({
      topic: 'hookstream.sub.billing.replays',
      partitions: 1,
      replicationFactor: 1,
      config: {
        'cleanup.policy': 'compact,delete',
        'retention.ms': String(REPLAY_LOG_RETENTION_MS),
        'segment.ms': '86400000',
        'min.compaction.lag.ms': '0',
        'min.insync.replicas': '1',
      },
    });
  });

  it('replicates up to three copies with two in sync on larger clusters', () => {
    expect(replayLogTopic('billing', 5)).toMatchObject({
      replicationFactor: 3,
      config: { 'min.insync.replicas': '2' },
    });
    expect(replayLogTopic('billing', 2)).toMatchObject({
      replicationFactor: 2,
      config: { 'min.insync.replicas': '2' },
    });
  });

  it('outlives the DLQ (30 days) so a dead letter cannot be replayed twice by accident', () => {
    expect(REPLAY_LOG_RETENTION_MS).toBeGreaterThan(30 * 86_400_000);
  });
});
