import { describe, expect, it } from 'vitest';
import '../../src/index.ts';
import {
  type GroupingInput,
  groupMessagesPerPartition,
  kafkajsGroupingPath,
} from '../../src/kafkajs-patches/produce-grouping.ts';
import { kafkajsOriginal } from './kafkajs-original.ts';

type Group = typeof groupMessagesPerPartition<{ key: string }>;

/** kafkajs's own grouping, loaded afresh whatever the module cache holds. */
const kafkajsGrouping = (): Group => kafkajsOriginal<Group>(kafkajsGroupingPath());

/** A deterministic partitioner that records its calls, so the call order can be compared too. */
function recording(partitions: number): {
  calls: string[];
  input: GroupingInput<{ key: string }>['partitioner'];
} {
  const calls: string[] = [];
  return {
    calls,
    input: ({ topic, message }) => {
      calls.push(`${topic}/${message.key}`);
      let h = 0;
      for (const c of message.key) h = (h * 31 + c.charCodeAt(0)) | 0;
      return Math.abs(h) % partitions;
    },
  };
}

describe("groupMessagesPerPartition: produce-retry's send groups by partition in one pass", () => {
  it.each([
    [0, 6],
    [1, 1],
    [7, 3],
    [500, 6],
    [1000, 1],
  ])('groups %i messages over %i partitions exactly as kafkajs does', (count, partitions) => {
    const messages = Array.from({ length: count }, (_, i) => ({ key: `k-${(i * 7919) % 211}` }));
    const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId }));
    const ours = recording(partitions);
    const theirs = recording(partitions);
    const got = groupMessagesPerPartition({
      topic: 't',
      partitionMetadata,
      messages,
      partitioner: ours.input,
    });
    const want = kafkajsGrouping()({ topic: 't', partitionMetadata, messages, partitioner: theirs.input });
    expect(Object.keys(got)).toEqual(Object.keys(want));
    expect(got).toEqual(want);
    for (const [partition, list] of Object.entries(want))
      for (const [i, m] of list.entries()) expect(got[Number(partition)]?.[i]).toBe(m);
    expect(ours.calls).toEqual(theirs.calls);
  });

  it('returns an empty object without partition metadata, calling no partitioner', () => {
    const p = recording(1);
    expect(
      groupMessagesPerPartition({
        topic: 't',
        partitionMetadata: [],
        messages: [{ key: 'a' }],
        partitioner: p.input,
      }),
    ).toEqual({});
    expect(p.calls).toEqual([]);
  });
});
