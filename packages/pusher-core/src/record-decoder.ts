import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';

/**
 * `poison`: the bytes can never be decoded (bad framing, unknown schema id, bad Avro body), so
 * the record is dead-lettered and the partition moves on. `unavailable`: the registry could not
 * be asked; nothing is wrong with the record, so it waits and is decoded again.
 */
export type DecodeResult =
  | { readonly kind: 'ok'; readonly data: Readonly<Record<string, unknown>> }
  | { readonly kind: 'poison'; readonly detail: string }
  | { readonly kind: 'unavailable'; readonly detail: string };

export interface RecordDecoder {
  decode(value: Buffer | null): Promise<DecodeResult>;
}

/** Avro in the Confluent wire format: magic byte 0, 4-byte schema id, Avro body. */
export class AvroRecordDecoder implements RecordDecoder {
  readonly #registry: SchemaRegistry;

  constructor(registryUrl: string) {
    this.#registry = new SchemaRegistry({ host: registryUrl, clientId: 'hookstream-pusher' });
  }

  async decode(value: Buffer | null): Promise<DecodeResult> {
    if (value === null || value.length < 5)
      return { kind: 'poison', detail: 'value shorter than the wire-format header' };
    if (value[0] !== 0) return { kind: 'poison', detail: `magic byte ${value[0]}, expected 0` };
    const schemaId = value.readInt32BE(1);
    try {
      // Cached after the first call; asked separately so a registry outage is not poison.
      await this.#registry.getSchema(schemaId);
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (status === 404) return { kind: 'poison', detail: `unknown schema id ${schemaId}` };
      return { kind: 'unavailable', detail: `schema registry: ${message(err)}` };
    }
    try {
      const data: unknown = await this.#registry.decode(value);
      if (typeof data !== 'object' || data === null || Array.isArray(data))
        return { kind: 'poison', detail: 'the value is not an Avro record' };
      return { kind: 'ok', data: data as Record<string, unknown> };
    } catch (err) {
      return { kind: 'poison', detail: `undecodable Avro body (schema id ${schemaId}): ${message(err)}` };
    }
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
