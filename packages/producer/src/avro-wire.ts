import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';

/** What the producer needs of an Avro type: avsc's encoder. */
export interface AvroWriter {
  toBuffer(value: unknown): Buffer;
}

/**
 * Each registered schema's type, as the registry client decodes it (the one its encode uses).
 * A schema it cannot fetch now is left out: its events then go through registry.encode.
 */
export async function avroWriters(
  registry: Pick<SchemaRegistry, 'getSchema'>,
  schemaIds: ReadonlyMap<string, number>,
): Promise<Map<number, AvroWriter>> {
  const writers = new Map<number, AvroWriter>();
  for (const id of new Set(schemaIds.values())) {
    const schema = (await registry.getSchema(id).catch(() => undefined)) as Partial<AvroWriter> | undefined;
    if (typeof schema?.toBuffer === 'function') writers.set(id, schema as AvroWriter);
  }
  return writers;
}

/** Confluent framing, as the registry client writes it: magic byte 0, the schema id (int32 BE), the Avro bytes. */
export function wireFormat(schemaId: number, avro: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(5 + avro.length);
  framed[0] = 0;
  framed.writeInt32BE(schemaId, 1);
  avro.copy(framed, 5);
  return framed;
}
