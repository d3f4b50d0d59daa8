import { HS_HEADER } from '@hookstream/contracts';
import type { ConsumedRecord, KafkaConnection } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import type { UnsettledRange } from '../src/consume/subscriber-consumer.ts';
import { CLOCK_SKEW_MS, copiedOffsets, DownstreamCopies } from '../src/downstream-copies.ts';

/** A tier or DLQ record written from `topic:partition:offset`. */
function copyOf(topic: string, partition: number, offset: number): ConsumedRecord {
  return {
    topic: 'hookstream.sub.billing.retry.1',
    partition: 0,
    offset: '0',
    key: null,
    value: Buffer.from('x'),
    headers: {
      [HS_HEADER.sourceTopic]: topic,
      [HS_HEADER.sourcePartition]: String(partition),
      [HS_HEADER.sourceOffset]: String(offset),
    },
    timestampMs: 0,
  };
}

const ranges: UnsettledRange[] = [
  { topic: 'events', partition: 0, from: 10, to: 20, sinceMs: 0 },
  { topic: 'hookstream.sub.billing.retry.1', partition: 1, from: 5, to: 6, sinceMs: 0 },
];

describe('copiedOffsets', () => {
  it('keeps the source positions inside the ranges, each once, in offset order', () => {
    const found = copiedOffsets(
      [
        copyOf('events', 0, 15),
        copyOf('events', 0, 10),
        // The same record copied twice (a fork made before this fix): one offset.
        copyOf('events', 0, 15),
        copyOf('hookstream.sub.billing.retry.1', 1, 5),
      ],
      ranges,
    );
    expect(found).toEqual(
      new Map([
        ['events:0', [10, 15]],
        ['hookstream.sub.billing.retry.1:1', [5]],
      ]),
    );
  });

  it('passes over copies of committed records, of the range end, of other partitions and topics, and records without a source', () => {
    const noSource = { ...copyOf('events', 0, 12), headers: {} };
    const found = copiedOffsets(
      [
        copyOf('events', 0, 9),
        copyOf('events', 0, 20),
        copyOf('events', 1, 12),
        copyOf('other', 0, 12),
        copyOf('hookstream.sub.billing.retry.1', 1, 6),
        noSource,
      ],
      ranges,
    );
    expect(found).toEqual(new Map());
  });

  it("passes over a copy written before its own range's openSince: an earlier chain's, before a rewind", () => {
    const since = 1_000_000_000;
    const rewound: UnsettledRange[] = [
      { topic: 'events', partition: 0, from: 10, to: 20, sinceMs: since },
      // Another partition open for longer: its age must not let old copies of the first in.
      { topic: 'events', partition: 1, from: 0, to: 5, sinceMs: 0 },
    ];
    const old = { ...copyOf('events', 0, 12), timestampMs: since - CLOCK_SKEW_MS - 1 };
    const fresh = { ...copyOf('events', 0, 13), timestampMs: since - CLOCK_SKEW_MS };
    expect(copiedOffsets([old, fresh], rewound)).toEqual(new Map([['events:0', [13]]]));
  });
});

describe('DownstreamCopies.find', () => {
  const range: UnsettledRange = { topic: 'events', partition: 0, from: 10, to: 20, sinceMs: 1_000_000 };
  // Any read would go through this connection, and fail: none is expected.
  const unreadable = {} as KafkaConnection;

  it('reads none of the subscriber’s topics when none holds anything written since the oldest range opened', async () => {
    const asked: { topics: readonly string[]; sinceMs: number }[] = [];
    const copies = new DownstreamCopies(
      unreadable,
      {
        topicsWrittenSince: async (topics, sinceMs) => {
          asked.push({ topics, sinceMs });
          return new Set();
        },
      },
      () => ['t.retry.1', 't.dlq'],
    );
    expect(await copies.find([range])).toEqual(new Map());
    expect(asked).toEqual([{ topics: ['t.retry.1', 't.dlq'], sinceMs: 1_000_000 - CLOCK_SKEW_MS }]);
  });

  it('asks nothing without ranges or topics', async () => {
    const never = { topicsWrittenSince: () => Promise.reject(new Error('not asked')) };
    expect(await new DownstreamCopies(unreadable, never, () => ['t.dlq']).find([])).toEqual(new Map());
    expect(await new DownstreamCopies(unreadable, never, () => []).find([range])).toEqual(new Map());
  });
});
