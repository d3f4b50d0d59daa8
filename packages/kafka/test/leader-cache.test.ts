import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BatchCluster } from '../src/admin/cluster-metadata.ts';
import { LeaderCache } from '../src/admin/leader-cache.ts';

/** A cluster whose Metadata answers are counted: each topic one partition, led by broker 1. */
function countingCluster() {
  const asked: string[][] = [];
  const cluster = {
    refreshMetadataIfNecessary: async () => undefined,
    brokerPool: {
      withBroker: async <T>(call: (b: { broker: unknown }) => Promise<T>) =>
        call({
          broker: {
            metadata: async (topics: string[]) => {
              asked.push(topics);
              return {
                topicMetadata: topics.map((topic) => ({
                  topic,
                  partitionMetadata: [{ partitionId: 0, leader: 1 }],
                })),
              };
            },
          },
        }),
    },
  };
  // A structural fake: LeaderCache uses only the members above (through partitionLeaders).
  return { asked, cluster: cluster as unknown as BatchCluster };
}

describe('LeaderCache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks only for topics it does not know or knows too long, and everything again after forget', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { asked, cluster } = countingCluster();
    const cache = new LeaderCache(50);
    expect(await cache.of(cluster, ['a', 'b'])).toEqual(
      new Map([
        ['a', [{ partition: 0, leader: 1 }]],
        ['b', [{ partition: 0, leader: 1 }]],
      ]),
    );
    await cache.of(cluster, ['a', 'b', 'c']);
    expect(asked).toEqual([['a', 'b'], ['c']]);
    vi.setSystemTime(Date.now() + 51);
    await cache.of(cluster, ['a']);
    cache.forget();
    await cache.of(cluster, ['c']);
    expect(asked).toEqual([['a', 'b'], ['c'], ['a'], ['c']]);
  });
});
