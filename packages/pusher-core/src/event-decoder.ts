import { type EventSchema, loadEventCatalog } from '@hookstream/contracts';
import avro from 'avsc';
import type { SchemaSource } from './schema-source.ts';

/**
 * `poison`: the bytes can never be decoded as an event of their type (bad framing, unknown or
 * non-Avro schema id, a schema of another type, bad Avro body), so the record is dead-lettered
 * and the partition moves on. `unavailable`: the registry could not be asked; nothing is wrong
 * with the record, so it waits and is decoded again.
 */
export type DecodeResult =
  | { readonly kind: 'ok'; readonly data: Readonly<Record<string, unknown>> }
  | { readonly kind: 'poison'; readonly detail: string }
  | { readonly kind: 'unavailable'; readonly detail: string };

export interface EventDecoder {
  /** `type` is the record's ce_type: the schema id must not be a catalog schema of another type. */
  decode(value: Buffer | null, type: string): Promise<DecodeResult>;
}

/** What one schema id is, once known; kept so a busy topic asks the registry once per id. */
type KnownSchema =
  | { readonly kind: 'avro'; readonly type: avro.Type; readonly name: string }
  | { readonly kind: 'unusable'; readonly detail: string };

/** Schema ids remembered; beyond it the oldest is forgotten (hostile records carry any id). */
const MAX_KNOWN_SCHEMAS = 1000;

/** Event type -> the Avro full name of its schemas (the registry subject, record name strategy). */
export function schemaNamesOf(catalog: ReadonlyMap<string, EventSchema>): ReadonlyMap<string, string> {
  return new Map([...catalog.values()].map((s) => [s.type, s.subject]));
}

/** Avro in the Confluent wire format: magic byte 0, 4-byte schema id, Avro body. */
export class AvroEventDecoder implements EventDecoder {
  readonly #source: SchemaSource;
  readonly #names: ReadonlyMap<string, string>;
  readonly #catalogNames: ReadonlySet<string>;
  readonly #known = new Map<number, KnownSchema>();
  /** Lookups under way: records arriving together ask the registry once, and end in order. */
  readonly #asking = new Map<number, Promise<KnownSchema | { kind: 'unavailable'; detail: string }>>();

  constructor(source: SchemaSource, names: ReadonlyMap<string, string> = schemaNamesOf(loadEventCatalog())) {
    this.#source = source;
    this.#names = names;
    this.#catalogNames = new Set(names.values());
  }

  async decode(value: Buffer | null, type: string): Promise<DecodeResult> {
    if (value === null) return { kind: 'poison', detail: 'no value (a tombstone on the events topic)' };
    if (value.length < 5) return { kind: 'poison', detail: 'value shorter than the wire-format header' };
    if (value[0] !== 0) return { kind: 'poison', detail: `magic byte ${value[0]}, expected 0` };
    const schemaId = value.readInt32BE(1);
    if (schemaId < 1) return { kind: 'poison', detail: `schema id ${schemaId} is not a registry id` };
    const schema = await this.#schema(schemaId);
    if (schema.kind === 'unavailable') return schema;
    if (schema.kind === 'unusable') return { kind: 'poison', detail: schema.detail };
    // A schema of another catalog type is a mix-up that cannot decode right. A schema outside the
    // catalog is not judged by name (tests and bench register their own); its body still must decode.
    const expected = this.#names.get(type);
    if (schema.name !== expected && this.#catalogNames.has(schema.name))
      return { kind: 'poison', detail: `schema id ${schemaId} is ${schema.name}, not a schema of ${type}` };
    try {
      const data: unknown = schema.type.fromBuffer(value.subarray(5));
      if (typeof data !== 'object' || data === null || Array.isArray(data))
        return { kind: 'poison', detail: 'the value is not an Avro record' };
      return { kind: 'ok', data: data as Record<string, unknown> };
    } catch (err) {
      return { kind: 'poison', detail: `undecodable Avro body (schema id ${schemaId}): ${message(err)}` };
    }
  }

  #schema(id: number): Promise<KnownSchema | { kind: 'unavailable'; detail: string }> {
    const known = this.#known.get(id);
    if (known) return Promise.resolve(known);
    let asking = this.#asking.get(id);
    if (asking === undefined) {
      asking = this.#lookup(id).finally(() => this.#asking.delete(id));
      this.#asking.set(id, asking);
    }
    return asking;
  }

  async #lookup(id: number): Promise<KnownSchema | { kind: 'unavailable'; detail: string }> {
    const found = await this.#source.lookup(id);
    if (found.kind === 'unavailable') return found;
    // A 404 is not remembered: the id may be registered in a moment.
    if (found.kind === 'missing') return { kind: 'unusable', detail: `unknown schema id ${id}` };
    const schema = parse(id, found.schemaType, found.schema);
    if (this.#known.size >= MAX_KNOWN_SCHEMAS) {
      const oldest = this.#known.keys().next().value;
      if (oldest !== undefined) this.#known.delete(oldest);
    }
    this.#known.set(id, schema);
    return schema;
  }
}

function parse(id: number, schemaType: string, text: string): KnownSchema {
  if (schemaType !== 'AVRO')
    return { kind: 'unusable', detail: `schema id ${id} is a ${schemaType} schema, not Avro` };
  try {
    const type = avro.Type.forSchema(JSON.parse(text) as avro.Schema);
    return { kind: 'avro', type, name: type.name ?? '(unnamed)' };
  } catch (err) {
    return { kind: 'unusable', detail: `schema id ${id} is not a usable Avro schema: ${message(err)}` };
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
