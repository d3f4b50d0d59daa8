import { z } from 'zod';

/**
 * Derives a zod validator from an Avro schema (parsed .avsc JSON), so the schemas in
 * `schemas/` are the one source of truth for what event data looks like. Covers the Avro
 * subset hookstream's event schemas use; anything else throws instead of validating loosely.
 *
 * Validation follows Avro's JSON shape as `avsc` encodes it: a `["null", T]` union is a plain
 * `T | null` (unwrapped), missing fields take their declared default, unknown fields are
 * refused (Avro would silently drop them). A string field with `"format": "date-time"` must be
 * an RFC 3339 time (on the type or the field): Avro has no such type, the attribute is ours.
 */
export function avroToZod(schema: unknown): z.ZodType {
  return convert(schema, new Map(), undefined);
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

function convert(schema: unknown, named: Map<string, z.ZodType>, namespace: string | undefined): z.ZodType {
  if (typeof schema === 'string') return primitive(schema, named, namespace);
  if (Array.isArray(schema)) return union(schema, named, namespace);
  if (schema === null || typeof schema !== 'object') throw unsupported(schema);
  const s = schema as Record<string, unknown>;
  switch (s.type) {
    case 'record': {
      const ns = typeof s.namespace === 'string' ? s.namespace : namespace;
      const shape: Record<string, z.ZodType> = {};
      // Register before the fields so a recursive reference does not loop forever.
      const name = fullName(s.name, ns);
      const fields = Array.isArray(s.fields) ? s.fields : [];
      for (const field of fields as Record<string, unknown>[]) {
        if (typeof field.name !== 'string') throw unsupported(field);
        let type = convert(field.format === 'date-time' ? dateTime(field.type) : field.type, named, ns);
        if ('default' in field) type = type.default(field.default as never);
        shape[field.name] = type;
      }
      const record = z.strictObject(shape);
      named.set(name, record);
      return record;
    }
    case 'enum': {
      const symbols = s.symbols as [string, ...string[]];
      const type = z.enum(symbols);
      named.set(fullName(s.name, typeof s.namespace === 'string' ? s.namespace : namespace), type);
      return type;
    }
    case 'array':
      return z.array(convert(s.items, named, namespace));
    case 'map':
      return z.record(z.string(), convert(s.values, named, namespace));
    case 'string':
      return s.format === 'date-time' ? z.iso.datetime({ offset: true }) : z.string();
    default:
      if (typeof s.type === 'string' && s.logicalType === undefined)
        return primitive(s.type, named, namespace);
      throw unsupported(schema);
  }
}

function primitive(name: string, named: Map<string, z.ZodType>, namespace: string | undefined): z.ZodType {
  switch (name) {
    case 'null':
      return z.null();
    case 'boolean':
      return z.boolean();
    case 'int':
      return z.number().int().min(INT_MIN).max(INT_MAX);
    case 'long':
      // JSON numbers are exact only up to 2^53; avsc refuses longs beyond that too.
      return z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
    case 'float':
    case 'double':
      return z.number();
    case 'string':
      return z.string();
  }
  const ref = named.get(name) ?? named.get(fullName(name, namespace));
  if (ref) return ref;
  throw unsupported(name);
}

function union(branches: unknown[], named: Map<string, z.ZodType>, namespace: string | undefined): z.ZodType {
  const others = branches.filter((b) => b !== 'null');
  const [only] = others;
  // Only optional values: a union of several non-null types needs Avro's wrapped JSON form,
  // which would make producers write {"string": "x"}; hookstream's schemas do not use it.
  if (others.length !== 1 || branches.length !== 2) throw unsupported(branches);
  return convert(only, named, namespace).nullable();
}

/** A field-level `"format": "date-time"` applies to the field's string (or optional string). */
function dateTime(type: unknown): unknown {
  const text = { type: 'string', format: 'date-time' };
  if (type === 'string') return text;
  if (Array.isArray(type)) return type.map((b) => (b === 'string' ? text : b));
  return type;
}

function fullName(name: unknown, namespace: string | undefined): string {
  if (typeof name !== 'string') throw unsupported(name);
  return name.includes('.') || namespace === undefined ? name : `${namespace}.${name}`;
}

function unsupported(schema: unknown): Error {
  return new TypeError(`Avro schema element not supported by hookstream: ${JSON.stringify(schema)}`);
}
