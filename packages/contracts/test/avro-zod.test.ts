import { describe, expect, it } from 'vitest';
import { avroToZod } from '../src/avro-zod.ts';

const schema = {
  type: 'record',
  name: 'Sample',
  namespace: 'test',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'count', type: 'int' },
    { name: 'big', type: 'long', default: 0 },
    { name: 'ratio', type: ['null', 'double'], default: null },
    { name: 'flag', type: 'boolean', default: false },
    { name: 'when', type: ['null', 'string'], default: null, format: 'date-time' },
    { name: 'color', type: { type: 'enum', name: 'Color', symbols: ['red', 'green'] } },
    { name: 'tags', type: { type: 'array', items: 'string' }, default: [] },
    { name: 'attrs', type: { type: 'map', values: 'string' }, default: {} },
    { name: 'second', type: ['null', 'Color'], default: null },
  ],
};

describe('avroToZod', () => {
  const validator = avroToZod(schema);

  it('accepts valid data and fills in the defaults Avro would encode', () => {
    expect(validator.parse({ id: 'a', count: 1, color: 'red' })).toEqual({
      id: 'a',
      count: 1,
      big: 0,
      ratio: null,
      flag: false,
      when: null,
      color: 'red',
      tags: [],
      attrs: {},
      second: null,
    });
  });

  it.each([
    [{ count: 1, color: 'red' }, ['id']],
    [{ id: 'a', count: 1.5, color: 'red' }, ['count']],
    [{ id: 'a', count: 2 ** 31, color: 'red' }, ['count']],
    [{ id: 'a', count: 1, color: 'blue' }, ['color']],
    [{ id: 'a', count: 1, color: 'red', when: 'yesterday' }, ['when']],
    [{ id: 'a', count: 1, color: 'red', tags: [1] }, ['tags', 0]],
    [{ id: 'a', count: 1, color: 'red', second: 'blue' }, ['second']],
    [{ id: 'a', count: 1, color: 'red', extra: true }, []],
  ])('rejects %j with the failing path', (data, path) => {
    const result = validator.safeParse(data);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(path);
  });

  it.each([
    ['bytes', { type: 'record', name: 'B', fields: [{ name: 'b', type: 'bytes' }] }],
    ['multi-type unions', { type: 'record', name: 'U', fields: [{ name: 'u', type: ['string', 'int'] }] }],
    [
      'logical types',
      { type: 'record', name: 'L', fields: [{ name: 'l', type: { type: 'int', logicalType: 'date' } }] },
    ],
    ['unknown names', { type: 'record', name: 'N', fields: [{ name: 'n', type: 'Nope' }] }],
  ])('refuses to convert %s rather than validating loosely', (_, avro) => {
    expect(() => avroToZod(avro)).toThrow(/not supported/);
  });
});
