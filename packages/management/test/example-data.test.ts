import { loadEventCatalog } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { exampleData } from '../src/index.ts';

const NOW = Date.parse('2026-12-01T10:00:00.000Z');

describe('exampleData', () => {
  const catalog = [...loadEventCatalog().values()];

  it('has schemas to check', () => {
    expect(catalog.length).toBeGreaterThan(0);
  });

  it.each(catalog.map((s) => [s.type, s] as const))('makes data %s validates', (_type, schema) => {
    const data = exampleData(schema.avro, { nowMs: NOW });
    const checked = schema.validator.safeParse(data);
    expect(checked.success, JSON.stringify(checked.error?.issues)).toBe(true);
  });

  it('fills records recursively, with each kind of value as documented', () => {
    const schema = {
      type: 'record',
      name: 'All',
      namespace: 'x',
      fields: [
        { name: 's', type: 'string' },
        { name: 'i', type: 'int' },
        { name: 'l', type: 'long' },
        { name: 'd', type: 'double' },
        { name: 'b', type: 'boolean' },
        { name: 'e', type: { type: 'enum', name: 'Colour', symbols: ['red', 'green'] } },
        { name: 'a', type: { type: 'array', items: 'int' } },
        { name: 'm', type: { type: 'map', values: 'string' } },
        { name: 'u', type: ['null', 'long'] },
        { name: 'ts', type: { type: 'long', logicalType: 'timestamp-millis' } },
        { name: 'id', type: { type: 'string', logicalType: 'uuid' } },
        { name: 'at', type: ['null', 'string'], format: 'date-time' },
        { name: 'inner', type: { type: 'record', name: 'Inner', fields: [{ name: 'c', type: 'Colour' }] } },
      ],
    };
    expect(exampleData(schema, { nowMs: NOW })).toEqual({
      s: 'example s',
      i: 1,
      l: 1,
      d: 1.5,
      b: true,
      e: 'red',
      a: [1],
      m: { key: 'example m' },
      u: 1,
      ts: NOW,
      id: '00000000-0000-4000-8000-000000000000',
      at: '2026-12-01T10:00:00.000Z',
      inner: { c: 'red' },
    });
  });

  it('stops a type that refers to itself instead of recursing forever', () => {
    const schema = {
      type: 'record',
      name: 'Node',
      fields: [{ name: 'next', type: ['null', 'Node'] }],
    };
    expect(JSON.stringify(exampleData(schema)).length).toBeLessThan(2000);
  });
});
