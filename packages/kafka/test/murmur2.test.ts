import { randomBytes } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createMurmur2Partitioner, murmur2Partition } from '../src/produce/murmur2.ts';

const kafkajs = Partitioners.DefaultPartitioner();
const metadata = (count: number) =>
  Array.from({ length: count }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));

describe('murmur2: the partitions of kafkajs’s default partitioner', () => {
  // Every tail length (0–3 bytes past a multiple of 4), multi-byte UTF-8, bytes ≥ 0x80 (signed in Java).
  const keys = [
    '',
    'a',
    'ab',
    'abc',
    'abcd',
    'evt_01JEXAMPLE0000000000000000',
    'tenant:acme/é🚚',
    ...Array.from({ length: 2000 }, () => randomBytes(1 + Math.floor(Math.random() * 60)).toString('base64')),
  ];

  it.each([1, 3, 6, 12, 100])('keys of strings, %i partitions', (count) => {
    const partitionMetadata = metadata(count);
    for (const key of keys)
      expect(murmur2Partition(key, count), key).toBe(
        kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }),
      );
  });

  it('keys of raw bytes', () => {
    const partitionMetadata = metadata(6);
    for (let i = 0; i < 500; i++) {
      const key = randomBytes(i % 40);
      expect(murmur2Partition(key, 6)).toBe(
        kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }),
      );
    }
  });

  it('as a partitioner: an explicit partition wins, an unkeyed record goes round the partitions with a leader', () => {
    const partition = createMurmur2Partitioner();
    const partitionMetadata = [
      { partitionId: 0, leader: 0 },
      { partitionId: 1, leader: -1 },
      { partitionId: 2, leader: 0 },
    ];
    expect(partition({ topic: 't', partitionMetadata, message: { key: 'k', partition: 1 } })).toBe(1);
    expect(partition({ topic: 't', partitionMetadata, message: { key: 'k' } })).toBe(
      murmur2Partition('k', 3),
    );
    const unkeyed = Array.from({ length: 4 }, () =>
      partition({ topic: 't', partitionMetadata, message: { key: null } }),
    );
    expect(new Set(unkeyed)).toEqual(new Set([0, 2]));
  });
});
