import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { AvroEventDecoder } from '../src/event-decoder.ts';
import type { SchemaLookup, SchemaSource } from '../src/schema-source.ts';

const shipment: avro.schema.RecordType = {
  type: 'record',
  name: 'ShipmentUpdated',
  namespace: 'hookstream.events',
  fields: [{ name: 'id', type: 'string' }],
};
const revoked = { ...shipment, name: 'KeyRevoked' };
const names = new Map([
  ['shipment.updated', 'hookstream.events.ShipmentUpdated'],
  ['key.revoked', 'hookstream.events.KeyRevoked'],
]);

class FakeSource implements SchemaSource {
  readonly asked: number[] = [];
  readonly answers: Record<number, SchemaLookup>;
  constructor(answers: Record<number, SchemaLookup>) {
    this.answers = answers;
  }
  async lookup(id: number): Promise<SchemaLookup> {
    this.asked.push(id);
    return this.answers[id] ?? { kind: 'missing' };
  }
}

const avroSchema = (schema: object): SchemaLookup => ({
  kind: 'found',
  schemaType: 'AVRO',
  schema: JSON.stringify(schema),
});

function wire(id: number, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeInt32BE(id, 1);
  return Buffer.concat([header, body]);
}

const body = avro.Type.forSchema(shipment).toBuffer({ id: 'shp_1' });

function decoder(answers: Record<number, SchemaLookup> = {}) {
  const source = new FakeSource({ 1: avroSchema(shipment), 2: avroSchema(revoked), ...answers });
  return { source, decoder: new AvroEventDecoder(source, names) };
}

describe('AvroEventDecoder', () => {
  it('decodes a value written with a schema of its type, asking the registry once per id', async () => {
    const { source, decoder: d } = decoder();
    expect(await d.decode(wire(1, body), 'shipment.updated')).toEqual({ kind: 'ok', data: { id: 'shp_1' } });
    await d.decode(wire(1, body), 'shipment.updated');
    expect(source.asked).toEqual([1]);
  });

  it('records arriving together share one lookup and finish in the order they came', async () => {
    const { source, decoder: d } = decoder();
    const done: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map((i) =>
        d.decode(wire(1, body), 'shipment.updated').then((r) => {
          expect(r.kind).toBe('ok');
          done.push(i);
        }),
      ),
    );
    expect(source.asked).toEqual([1]);
    expect(done).toEqual([0, 1, 2, 3]);
  });

  it.each<{
    name: string;
    value: Buffer | null;
    type?: string;
    answers?: Record<number, SchemaLookup>;
    detail: RegExp;
  }>([
    { name: 'a tombstone', value: null, detail: /no value/ },
    { name: 'four bytes', value: Buffer.from([0, 0, 0, 1]), detail: /shorter than the wire-format header/ },
    { name: 'a wrong magic byte', value: Buffer.from([7, 0, 0, 0, 1, 2]), detail: /magic byte 7/ },
    { name: 'a negative schema id', value: wire(-3, body), detail: /schema id -3 is not a registry id/ },
    { name: 'an unknown schema id (404)', value: wire(99, body), detail: /unknown schema id 99/ },
    {
      name: 'a schema of another type',
      value: wire(2, body),
      detail: /schema id 2 is hookstream.events.KeyRevoked, not a schema of shipment.updated/,
    },
    {
      name: 'a catalog schema under a type with none',
      value: wire(1, body),
      type: 'order.placed',
      detail: /schema id 1 is hookstream.events.ShipmentUpdated, not a schema of order.placed/,
    },
    {
      name: 'a JSON schema id',
      value: wire(5, body),
      answers: { 5: { kind: 'found', schemaType: 'JSON', schema: '{"type":"object"}' } },
      detail: /schema id 5 is a JSON schema, not Avro/,
    },
    {
      name: 'a schema avsc cannot parse',
      value: wire(6, body),
      answers: { 6: { kind: 'found', schemaType: 'AVRO', schema: '{"type":"nonsense"' } },
      detail: /schema id 6 is not a usable Avro schema/,
    },
    {
      name: 'a truncated body',
      value: wire(1, body.subarray(0, body.length - 2)),
      detail: /undecodable Avro body/,
    },
    {
      name: 'trailing bytes',
      value: wire(1, Buffer.concat([body, Buffer.from([1, 2, 3])])),
      detail: /undecodable Avro body/,
    },
    {
      name: 'a string length past the end',
      value: wire(1, Buffer.from([0xfe, 0xff, 0xff, 0xff, 0x0f])),
      detail: /undecodable Avro body/,
    },
  ])('$name is poison with its reason', async ({ value, type, answers, detail }) => {
    const { decoder: d } = decoder(answers);
    const result = await d.decode(value, type ?? 'shipment.updated');
    expect(result.kind).toBe('poison');
    expect(result.kind === 'poison' && result.detail).toMatch(detail);
  });

  it('a schema outside the catalog is not judged by its name; its body must still decode', async () => {
    const foreign = { ...shipment, name: 'TestEvent', namespace: 'hookstream.test' };
    const { decoder: d } = decoder({ 7: avroSchema(foreign) });
    expect(await d.decode(wire(7, body), 'shipment.updated')).toEqual({ kind: 'ok', data: { id: 'shp_1' } });
  });

  it('a registry that cannot be asked is unavailable, not poison, and is asked again next time', async () => {
    const { source, decoder: d } = decoder({
      1: { kind: 'unavailable', detail: 'schema registry answered 503' },
    });
    expect(await d.decode(wire(1, body), 'shipment.updated')).toEqual({
      kind: 'unavailable',
      detail: 'schema registry answered 503',
    });
    await d.decode(wire(1, body), 'shipment.updated');
    expect(source.asked).toEqual([1, 1]);
  });
});
