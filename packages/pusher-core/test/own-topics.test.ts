import { describe, expect, it } from 'vitest';
import { OwnTopics } from '../src/own-topics.ts';
import type { PusherResources } from '../src/pusher-resources.ts';
import { topology } from './fakes.ts';

const tier = (n: number) => `hookstream.sub.billing.retry.${n}`;
const DLQ = 'hookstream.sub.billing.dlq';

/** The parts of the process's resources OwnTopics uses: a topic listing, lag, topic settings. */
class FakeResources {
  readonly replicationFactor = 1;
  readonly topics: Set<string>;
  readonly lag = new Map<string, number>();
  readonly retention = new Map<string, string>();
  readonly altered: { topic: string; changes: Record<string, string> }[] = [];
  readonly admin = {
    groupLag: async (_group: string, topics: readonly string[]) =>
      topics.map((topic) => ({ topic, lag: this.lag.get(topic) ?? 0 })),
    existingTopicConfigs: async (topics: readonly string[]) =>
      new Map(
        topics.flatMap((topic) => {
          const ms = this.retention.get(topic);
          return ms === undefined
            ? []
            : [[topic, { 'retention.ms': ms, 'cleanup.policy': 'delete' }] as const];
        }),
      ),
    alterTopicConfig: async (topic: string, changes: Record<string, string>) => {
      this.altered.push({ topic, changes });
    },
  };

  constructor(topics: readonly string[]) {
    this.topics = new Set(topics);
  }

  async topicsNamed(prefix: string): Promise<string[]> {
    return [...this.topics].filter((t) => t.startsWith(prefix)).sort();
  }

  async ensureTopics(specs: readonly { topic: string }[]): Promise<string[]> {
    const created = specs.map((s) => s.topic).filter((t) => !this.topics.has(t));
    for (const t of created) this.topics.add(t);
    return created;
  }
}

const retry = (delaysMs: number[]) => ({ delaysMs, maxAttempts: 5, jitter: 0, maxAgeMs: 86_400_000 });

function ownTopics(resources: FakeResources, delaysMs: number[]) {
  return new OwnTopics({
    topology: topology({ retry: retry(delaysMs) }),
    // A structural fake: only the members above are used.
    resources: resources as unknown as PusherResources,
    partitions: 1,
    log: () => undefined,
  });
}

describe('OwnTopics: which tiers a subscriber reads', () => {
  it("makes the schedule's missing tiers and the DLQ once, leaving other subscribers' alone, and reads them in tier order", async () => {
    const other = 'hookstream.sub.billing-two.retry.1';
    const resources = new FakeResources([tier(1), other]);
    let asked = 0;
    const ensureTopics = resources.ensureTopics.bind(resources);
    resources.ensureTopics = async (specs) => {
      asked++;
      return ensureTopics(specs);
    };
    const own = ownTopics(resources, [100, 200, 300]);
    await Promise.all([own.ensure(), own.ensure()]);
    await own.ensure();
    expect(asked).toBe(1);
    expect([...resources.topics].sort()).toEqual([DLQ, other, tier(1), tier(2), tier(3)].sort());
    expect(await own.tiersToRead()).toEqual([tier(1), tier(2), tier(3)]);
    expect(own.dlqExists).toBe(true);
  });

  it('reads a tier the schedule no longer lists while it holds unsettled records, in tier order', async () => {
    const resources = new FakeResources([tier(1), tier(2), tier(3), tier(10), DLQ]);
    resources.lag.set(tier(3), 4);
    resources.lag.set(tier(10), 1);
    const own = ownTopics(resources, [100]);
    expect(await own.tiersToRead()).toEqual([tier(1), tier(3), tier(10)]);
    // Drained: dropped at the next look.
    resources.lag.set(tier(3), 0);
    resources.lag.set(tier(10), 0);
    expect(await own.tiersToRead()).toEqual([tier(1)]);
  });

  it("leaves alone the topics this start made (they have the definition's settings): no config is read for them", async () => {
    const resources = new FakeResources([]);
    const asked: string[][] = [];
    const read = resources.admin.existingTopicConfigs;
    resources.admin.existingTopicConfigs = async (topics) => {
      asked.push([...topics]);
      return read(topics);
    };
    const own = ownTopics(resources, [100]);
    await own.ensure();
    await own.tiersToRead();
    expect(await own.alignRetention()).toEqual([]);
    expect(asked).toEqual([[]]);
  });

  it("brings an existing tier's and the DLQ's retention to the definition's, leaving the right ones alone", async () => {
    const resources = new FakeResources([tier(1), tier(2), DLQ]);
    const own = ownTopics(resources, [100]);
    await own.tiersToRead();
    const [spec1, dlqSpec] = topology({ retry: retry([100]) }).ownTopics(1, 1);
    resources.retention.set(tier(1), '1000');
    resources.retention.set(tier(2), '1000');
    resources.retention.set(DLQ, dlqSpec?.config?.['retention.ms'] ?? '');
    expect(await own.alignRetention()).toEqual([tier(1)]);
    expect(resources.altered).toEqual([
      { topic: tier(1), changes: { 'retention.ms': spec1?.config?.['retention.ms'] } },
    ]);
  });
});
