import { describe, expect, it } from 'vitest';
import type { BatchCluster, ClusterBroker, ProtocolRequest } from '../../src/admin/cluster-metadata.ts';
import type { GroupOffsetsAnswer } from '../../src/admin/group-batch-codec.ts';
import { fetchGroupsOffsets } from '../../src/admin/group-batch-offsets.ts';

const VERSIONS = { 9: { minVersion: 0, maxVersion: 9 }, 10: { minVersion: 0, maxVersion: 6 } };

/**
 * One broker (node 1) that coordinates every one of `groups` and answers the OffsetFetch for them
 * with `answer`; `asked` records each request's API name. The bytes are the codec's, tested on
 * their own; here the broker answers decoded.
 */
function clusterAnswering(
  groups: readonly string[],
  answer: (groupId: string) => Omit<GroupOffsetsAnswer, 'groupId'>,
  versions: ClusterBroker['versions'] = VERSIONS,
): { cluster: BatchCluster; asked: string[] } {
  const asked: string[] = [];
  const broker = {
    versions,
    connectionPool: {
      send: async <T>(r: ProtocolRequest<T>): Promise<T> => {
        asked.push(r.request.apiName);
        if (r.request.apiName === 'FindCoordinator')
          return groups.map((key) => ({
            key,
            nodeId: 1,
            host: '127.0.0.1',
            port: 9092,
            errorCode: 0,
            errorMessage: null,
          })) as T;
        return groups.map((groupId) => ({ groupId, ...answer(groupId) })) as T;
      },
    },
    metadata: async () => ({
      topicMetadata: [{ topic: 't', partitionMetadata: [{ partitionId: 0, leader: 1 }] }],
    }),
    listOffsets: async () => ({ responses: [] }),
  } as ClusterBroker;
  const cluster: BatchCluster = {
    isolationLevel: 1,
    findBroker: async () => broker,
    refreshMetadata: async () => undefined,
    refreshMetadataIfNecessary: async () => undefined,
    brokerPool: { withBroker: (call) => call({ broker }) },
  };
  return { cluster, asked };
}

const committed = (offset: string) => ({
  errorCode: 0,
  topics: [{ topic: 't', partitions: [{ partition: 0, offset, metadata: null, errorCode: 0 }] }],
});

describe('fetchGroupsOffsets', () => {
  it('asks every group in one FindCoordinator and one OffsetFetch per coordinator', async () => {
    const { cluster, asked } = clusterAnswering(['a', 'b', 'c'], () => committed('4'));
    const read = await fetchGroupsOffsets(cluster, ['a', 'b', 'c'], 't');
    expect(asked).toEqual(['FindCoordinator', 'OffsetFetch']);
    expect(read.unanswered).toEqual([]);
    expect(read.answers.get('b')).toEqual([{ partition: 0, offset: '4', metadata: null, errorCode: 0 }]);
  });

  it('leaves a group its coordinator does not hold (NOT_COORDINATOR), or a partition in error, to be asked alone', async () => {
    const { cluster } = clusterAnswering(['a', 'b', 'c'], (g) =>
      g === 'a'
        ? { errorCode: 16, topics: [] }
        : g === 'b'
          ? {
              errorCode: 0,
              topics: [
                { topic: 't', partitions: [{ partition: 0, offset: '-1', metadata: null, errorCode: 14 }] },
              ],
            }
          : committed('2'),
    );
    const read = await fetchGroupsOffsets(cluster, ['a', 'b', 'c'], 't');
    expect(read.unanswered).toEqual(['a', 'b']);
    expect([...read.answers.keys()]).toEqual(['c']);
  });

  it('asks nothing of a broker that does not speak OffsetFetch v8: every group is left to be asked alone', async () => {
    const { cluster, asked } = clusterAnswering(['a', 'b'], () => committed('1'), {
      9: { minVersion: 0, maxVersion: 7 },
      10: { minVersion: 0, maxVersion: 6 },
    });
    const read = await fetchGroupsOffsets(cluster, ['a', 'b'], 't');
    expect(asked).toEqual(['FindCoordinator']);
    expect(read.unanswered).toEqual(['a', 'b']);
  });
});
