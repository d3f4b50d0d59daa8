import { createRequire } from 'node:module';
import { loadEventCatalog } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { type AvroWriter, avroWriters, encodeWire, wireFormat } from '../src/avro-wire.ts';

const require = createRequire(import.meta.url);
const { encode } = require('@kafkajs/confluent-schema-registry/dist/wireEncoder') as {
  encode(registryId: number, payload: Buffer): Buffer;
};
// The registry client's Avro library (what its getSchema returns types of).
const avsc = require('avsc') as { Type: { forSchema(schema: unknown): AvroWriter } };

describe('wireFormat', () => {
  it("frames Avro bytes exactly as the registry client's encoder does", () => {
    for (const id of [1, 2, 255, 256, 65_537, 2 ** 31 - 1]) {
      for (const payload of [Buffer.alloc(0), Buffer.from([1]), Buffer.from('x'.repeat(1500))]) {
        expect(wireFormat(id, payload).equals(encode(id, payload))).toBe(true);
      }
    }
  });
});

describe('encodeWire', () => {
  it('gives the bytes of wireFormat(id, toBuffer(value)), small, beyond its scratch buffer and beyond its cap', () => {
    const catalog = loadEventCatalog();
    const shipment = avsc.Type.forSchema(catalog.get('shipment.updated')?.avro);
    const values = [
      { shipment: { id: '', status: '', carrier: null, tracking_number: null, updated_at: null } },
      {
        shipment: {
          id: 'ü😀',
          status: 'x',
          carrier: 'c',
          tracking_number: 'T'.repeat(960),
          updated_at: null,
        },
      },
      {
        shipment: {
          id: 's',
          status: 'x',
          carrier: null,
          tracking_number: 'T'.repeat(200_000),
          updated_at: null,
        },
      },
      { shipment: { id: 's', status: 'x', carrier: null, tracking_number: 'a', updated_at: null } },
      // Beyond the scratch buffer's cap: encoded by toBuffer.
      {
        shipment: {
          id: 's',
          status: 'x',
          carrier: null,
          tracking_number: 'L'.repeat(1_500_000),
          updated_at: null,
        },
      },
      { shipment: { id: 'after', status: 'x', carrier: null, tracking_number: 'b', updated_at: null } },
    ];
    for (const value of values) {
      expect(encodeWire(shipment, 42, value).equals(encode(42, shipment.toBuffer(value)))).toBe(true);
    }
    expect(() => encodeWire(shipment, 42, { shipment: { id: 7 } })).toThrow();
  });
});

describe('avroWriters', () => {
  it('keeps the types it could fetch and leaves the others to registry.encode', async () => {
    const type = { toBuffer: () => Buffer.alloc(0), encode: () => 0 };
    const registry = {
      getSchema: async (id: number) => {
        if (id === 2) throw new Error('registry down');
        return type as never;
      },
    };
    const writers = await avroWriters(
      registry,
      new Map([
        ['a.b', 1],
        ['c.d', 2],
        ['e.f', 1],
      ]),
    );
    expect([...writers.keys()]).toEqual([1]);
    expect(writers.get(1)).toBe(type);
  });
});
