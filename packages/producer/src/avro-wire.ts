import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';

/** What the producer needs of an Avro type: avsc's encoders. */
export interface AvroWriter {
  toBuffer(value: unknown): Buffer;
  /** Writes at pos; returns the end, or minus the bytes missing when buf is too small. */
  encode(value: unknown, buf: Buffer, pos: number): number;
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
    if (typeof schema?.toBuffer === 'function' && typeof schema.encode === 'function')
      writers.set(id, schema as AvroWriter);
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

/** Where values are encoded before they are copied out at their exact size. */
let scratch = Buffer.allocUnsafe(64 * 1024);
/** The scratch buffer grows up to this; a larger value is encoded by toBuffer, so none is kept. */
const MAX_SCRATCH_BYTES = 1024 * 1024;

/**
 * wireFormat(schemaId, writer.toBuffer(value)) in one allocation: the value is encoded after
 * the framing in a reused buffer, then copied out once (toBuffer zero-fills a buffer of its
 * own, which wireFormat then copies again). Throws what toBuffer throws for invalid values.
 */
export function encodeWire(writer: AvroWriter, schemaId: number, value: unknown): Buffer {
  let end = writer.encode(value, scratch, 5);
  if (end < 0) {
    const needed = scratch.length - end;
    if (needed > MAX_SCRATCH_BYTES) return wireFormat(schemaId, writer.toBuffer(value));
    scratch = Buffer.allocUnsafe(Math.min(MAX_SCRATCH_BYTES, Math.max(scratch.length * 2, needed)));
    end = writer.encode(value, scratch, 5);
    if (end < 0) return wireFormat(schemaId, writer.toBuffer(value));
  }
  const framed = Buffer.allocUnsafe(end);
  scratch.copy(framed, 0, 0, end);
  framed[0] = 0;
  framed.writeInt32BE(schemaId, 1);
  return framed;
}
