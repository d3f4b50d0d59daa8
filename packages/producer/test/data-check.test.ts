import { avroToZod, type EventSchema, loadEventCatalog } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { plainData } from '../src/data-check.ts';

const catalog = loadEventCatalog();

function schemaOf(avro: unknown): EventSchema {
  return { type: 'test.type', subject: 'test', avro, validator: avroToZod(avro) } as EventSchema;
}

/** Same verdict as the validator, and when accepted the same value, key order included. */
function expectAgreement(schema: EventSchema, data: unknown): void {
  const plain = plainData(schema, data);
  const zod = schema.validator.safeParse(data);
  if (plain === undefined) return;
  expect([data, zod.success]).toEqual([data, true]);
  expect(JSON.stringify(plain.value)).toBe(JSON.stringify(zod.data));
  expect(plain.value).toEqual(zod.data);
}

const rich = schemaOf({
  type: 'record',
  name: 'Rich',
  namespace: 'test',
  fields: [
    { name: 's', type: 'string' },
    { name: 'i', type: 'int' },
    { name: 'l', type: 'long', default: 0 },
    { name: 'd', type: 'double', default: 1.5 },
    { name: 'b', type: 'boolean', default: false },
    { name: 'n', type: ['null', 'string'], default: null },
    { name: 't', type: ['null', 'string'], default: null, format: 'date-time' },
    { name: 'e', type: { type: 'enum', name: 'Colour', symbols: ['red', 'green'] }, default: 'red' },
    { name: 'again', type: ['null', 'Colour'], default: null },
    {
      name: 'list',
      type: { type: 'array', items: { type: 'record', name: 'Item', fields: [{ name: 'x', type: 'int' }] } },
    },
    { name: 'when', type: { type: 'string', format: 'date-time' }, default: '2026-01-01T00:00:00Z' },
  ],
});

describe('plainData', () => {
  it('agrees with the zod validator on every event type of the catalog', () => {
    const samples: unknown[] = [
      { shipment: { id: 's1', status: 'in_transit' } },
      {
        shipment: {
          status: 'x',
          id: 's',
          tracking_number: 'T'.repeat(960),
          carrier: 'c',
          updated_at: '2026-11-30T10:00:00Z',
        },
      },
      { shipment: { id: 's', status: 'x', updated_at: 'yesterday' } },
      { shipment: { id: 's', status: 'x', updated_at: '2026-11-30T10:00:00+01:00' } },
      { shipment: { id: 's', status: 'x', extra: 1 } },
      { shipment: { id: 's' } },
      { shipment: { id: 7, status: 'x' } },
      { shipment: null },
      { shipment: [] },
      { tenant_id: 't', key_id: 'k' },
      { tenant_id: 't' },
      {},
    ];
    for (const schema of catalog.values()) for (const data of samples) expectAgreement(schema, data);
    const shipment = catalog.get('shipment.updated') as EventSchema;
    expect(plainData(shipment, samples[0])).toBeDefined();
  });

  it('agrees on every kind of field it models, defaults and edge values included', () => {
    const base = { s: 'x', i: 1, list: [] };
    const variants: unknown[] = [
      base,
      { list: [], i: 1, s: 'x' },
      { ...base, l: 2 ** 53 - 1 },
      { ...base, l: 2 ** 53 },
      { ...base, i: 2 ** 31 - 1 },
      { ...base, i: 2 ** 31 },
      { ...base, i: -(2 ** 31) },
      { ...base, i: 1.5 },
      { ...base, d: -0 },
      { ...base, d: 1e308 },
      { ...base, d: '1' },
      { ...base, b: true },
      { ...base, b: 0 },
      { ...base, n: 'text' },
      { ...base, n: null },
      { ...base, n: undefined },
      { ...base, t: '2026-02-29T00:00:00Z' },
      { ...base, t: '2028-02-29T00:00:00.123456Z' },
      { ...base, t: '2026-11-30T10:00:00' },
      { ...base, e: 'green' },
      { ...base, e: 'blue' },
      { ...base, again: 'green' },
      { ...base, list: [{ x: 1 }, { x: 2 }] },
      { ...base, list: [{ x: 1 }, { y: 2 }] },
      { ...base, list: {} },
      { ...base, when: 'now' },
      { ...base, unknown: 1 },
      { s: 'x' },
      { s: 'x', i: 1 },
      [],
      null,
      'text',
      Object.create({ s: 'x', i: 1, list: [] }),
    ];
    for (const data of variants) expectAgreement(rich, data);
    expect(plainData(rich, base)).toBeDefined();
  });

  it('leaves schemas with parts it does not model to the validator', () => {
    const withMap = schemaOf({
      type: 'record',
      name: 'M',
      fields: [{ name: 'm', type: { type: 'map', values: 'string' } }],
    });
    expect(plainData(withMap, { m: { a: 'b' } })).toBeUndefined();
    const objectDefault = schemaOf({
      type: 'record',
      name: 'D',
      fields: [{ name: 'list', type: { type: 'array', items: 'int' }, default: [] }],
    });
    expect(plainData(objectDefault, { list: [1] })).toBeUndefined();
  });
});
