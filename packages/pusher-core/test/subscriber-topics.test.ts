import { SubscriberDefinition } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { DLQ_RETENTION_MS, subscriberTopics } from '../src/subscriber-topics.ts';

describe('subscriberTopics', () => {
  it('names one retry tier per delay and the DLQ, with explicit retention', () => {
    const definition = SubscriberDefinition.parse({
      name: 'billing',
      url: 'https://x.example/',
      retry: { delaysMs: [1000, 60_000], maxAgeMs: 30 * 86_400_000 },
    });
    const topics = subscriberTopics(definition, 6);
    expect(topics.map((t) => t.topic)).toEqual([
      'hookstream.sub.billing.retry.1',
      'hookstream.sub.billing.retry.2',
      'hookstream.sub.billing.dlq',
    ]);
    for (const t of topics) expect(t.partitions).toBe(6);
    // Tiers outlive the age ceiling; the DLQ keeps at least the replay window.
    expect(Number(topics[0]?.config?.['retention.ms'])).toBeGreaterThan(30 * 86_400_000);
    expect(Number(topics[2]?.config?.['retention.ms'])).toBeGreaterThanOrEqual(DLQ_RETENTION_MS);
  });
});
