import { describe, expect, it } from 'vitest';
import { decodeHeaders, toConsumedRecord } from '../../src/consume/consumed-record.ts';

describe('consumed records', () => {
  it('decodes headers to utf8 strings, first value of a repeated header winning', () => {
    expect(
      decodeHeaders({ a: Buffer.from('x'), b: 'y', c: [Buffer.from('1'), Buffer.from('2')], d: undefined }),
    ).toEqual({
      a: 'x',
      b: 'y',
      c: '1',
    });
    expect(decodeHeaders(undefined)).toEqual({});
  });

  it('keeps key as utf8, value as bytes, timestamp as a number', () => {
    const r = toConsumedRecord('t', 3, {
      key: Buffer.from('ship-1'),
      value: Buffer.from([0, 1]),
      timestamp: '1700000000000',
      attributes: 0,
      offset: '42',
      headers: {},
    });
    expect(r).toEqual({
      topic: 't',
      partition: 3,
      offset: '42',
      key: 'ship-1',
      value: Buffer.from([0, 1]),
      headers: {},
      timestampMs: 1_700_000_000_000,
    });
  });
});
