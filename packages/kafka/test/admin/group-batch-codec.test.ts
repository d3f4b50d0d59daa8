import { describe, expect, it } from 'vitest';
import {
  decodeFindCoordinatorV4,
  decodeOffsetFetchV8,
  encodeFindCoordinatorV4,
  encodeOffsetFetchV8,
} from '../../src/admin/group-batch-codec.ts';

// Bytes laid out by hand from Kafka's OffsetFetchRequest/Response.json (v8: groups array, flexible)
// and FindCoordinatorRequest/Response.json (v4: coordinator keys): compact strings and arrays carry
// length + 1 as an unsigned varint, and each struct ends with its tagged fields (0: none).
const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const str = (s: string) => Buffer.from(s).toString('hex');

describe('OffsetFetch v8', () => {
  it('encodes groups, each with its topics and partitions, after the header’s empty tagged fields', () => {
    const body = encodeOffsetFetchV8([
      { groupId: 'g1', topics: [{ topic: 't', partitions: [0, 1] }] },
      { groupId: 'g2', topics: [{ topic: 't', partitions: [] }] },
    ]);
    expect(body.toString('hex')).toBe(
      hex(`00
        03
        03 ${str('g1')} 02 02 ${str('t')} 03 00000000 00000001 00 00
        03 ${str('g2')} 02 02 ${str('t')} 01 00 00
        00
        00`).toString('hex'),
    );
  });

  it('decodes each group’s partitions, errors and metadata, skipping tagged fields it does not know', () => {
    const payload = hex(`00
      00000000
      03
        03 ${str('g1')}
        02 02 ${str('t')}
          03
            00000000 0000000000000007 ffffffff 00 0000 00
            00000001 ffffffffffffffff ffffffff 05 ${str('meta')} 0000 01 00 02 abcd
          00
        0000 00
        03 ${str('g2')} 01 0010 00
      01 07 01 ff`);
    expect(decodeOffsetFetchV8(payload)).toEqual([
      {
        groupId: 'g1',
        errorCode: 0,
        topics: [
          {
            topic: 't',
            partitions: [
              { partition: 0, offset: '7', metadata: null, errorCode: 0 },
              { partition: 1, offset: '-1', metadata: 'meta', errorCode: 0 },
            ],
          },
        ],
      },
      { groupId: 'g2', errorCode: 16, topics: [] },
    ]);
  });
});

describe('FindCoordinator v4', () => {
  it('encodes the group key type and every key in one request', () => {
    expect(encodeFindCoordinatorV4(['a', 'bc']).toString('hex')).toBe(
      hex(`00 00 03 02 ${str('a')} 03 ${str('bc')} 00`).toString('hex'),
    );
  });

  it('decodes a coordinator per key, with its error', () => {
    const payload = hex(`00 00000000
      03
        02 ${str('a')} 00000001 0a ${str('127.0.0.1')} 00002384 0000 00 00
        02 ${str('b')} ffffffff 01 ffffffff 000f 05 ${str('gone')} 00
      00`);
    expect(decodeFindCoordinatorV4(payload)).toEqual([
      { key: 'a', nodeId: 1, host: '127.0.0.1', port: 9092, errorCode: 0, errorMessage: null },
      { key: 'b', nodeId: -1, host: '', port: -1, errorCode: 15, errorMessage: 'gone' },
    ]);
  });
});
