import type { EventSchema } from '@hookstream/contracts';
import { z } from 'zod';

/** What a check returns for a value it does not plainly accept. */
const REFUSED: unique symbol = Symbol('refused');
type Check = (value: unknown) => unknown;

/**
 * A check compiled from an event type's Avro schema that gives what its zod validator (from
 * avroToZod) gives for data that plainly passes: the same normalised value, fields in schema
 * order, defaults filled in. Anything else, every error included, is left to the validator
 * (undefined here), which stays the source of the rules and of the messages; this only spares
 * valid events its cost, which showed in the ingress's profile. Schemas with parts it does not
 * model (maps, logical types, object defaults...) get no check.
 */
export function plainData(schema: EventSchema, data: unknown): { readonly value: unknown } | undefined {
  let check = checks.get(schema);
  if (check === undefined) {
    check = compile(schema.avro, new Map(), undefined) ?? null;
    checks.set(schema, check);
  }
  if (check === null) return undefined;
  const value = check(data);
  return value === REFUSED ? undefined : { value };
}

const checks = new WeakMap<EventSchema, Check | null>();
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
/** The same rule as the validator's, for the `"format": "date-time"` strings. */
const DATE_TIME = z.iso.datetime({ offset: true });

/** Compiles a schema element; undefined when it is outside what this models. */
function compile(
  schema: unknown,
  named: Map<string, Check>,
  namespace: string | undefined,
): Check | undefined {
  if (typeof schema === 'string') return primitive(schema, named, namespace);
  if (Array.isArray(schema)) {
    const others = schema.filter((b) => b !== 'null');
    if (others.length !== 1 || schema.length !== 2) return undefined;
    const inner = compile(others[0], named, namespace);
    return inner && ((v) => (v === null ? null : inner(v)));
  }
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as Record<string, unknown>;
  if (s.logicalType !== undefined) return undefined;
  switch (s.type) {
    case 'record':
      return record(s, named, typeof s.namespace === 'string' ? s.namespace : namespace);
    case 'enum': {
      if (!Array.isArray(s.symbols) || typeof s.name !== 'string') return undefined;
      const symbols = new Set(s.symbols);
      const check: Check = (v) => (typeof v === 'string' && symbols.has(v) ? v : REFUSED);
      named.set(fullName(s.name, typeof s.namespace === 'string' ? s.namespace : namespace), check);
      return check;
    }
    case 'array': {
      const item = compile(s.items, named, namespace);
      if (item === undefined) return undefined;
      return (v) => {
        if (!Array.isArray(v)) return REFUSED;
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) {
          const checked = item(v[i]);
          if (checked === REFUSED) return REFUSED;
          out[i] = checked;
        }
        return out;
      };
    }
    case 'string':
      return s.format === 'date-time' ? dateTime : string;
    default:
      return typeof s.type === 'string' && s.type !== 'map' ? primitive(s.type, named, namespace) : undefined;
  }
}

function record(
  s: Record<string, unknown>,
  named: Map<string, Check>,
  namespace: string | undefined,
): Check | undefined {
  if (typeof s.name !== 'string' || !Array.isArray(s.fields)) return undefined;
  const names: string[] = [];
  const fieldChecks: Check[] = [];
  const defaults: { readonly value: unknown }[] = [];
  const hasDefault: boolean[] = [];
  for (const field of s.fields as Record<string, unknown>[]) {
    if (typeof field.name !== 'string') return undefined;
    const check = compile(
      field.format === 'date-time' ? dateTimeType(field.type) : field.type,
      named,
      namespace,
    );
    if (check === undefined) return undefined;
    // Only defaults the validator hands out as they are: an object default is out of scope.
    if ('default' in field && typeof field.default === 'object' && field.default !== null) return undefined;
    names.push(field.name);
    fieldChecks.push(check);
    hasDefault.push('default' in field);
    defaults.push({ value: field.default });
  }
  const known = new Set(names);
  const check: Check = (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return REFUSED;
    if (Object.getPrototypeOf(v) !== Object.prototype) return REFUSED;
    for (const key in v) if (!known.has(key)) return REFUSED;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const given = (v as Record<string, unknown>)[name];
      let value: unknown;
      if (given === undefined) {
        if (!hasDefault[i]) return REFUSED;
        value = (defaults[i] as { value: unknown }).value;
      } else {
        value = (fieldChecks[i] as Check)(given);
        if (value === REFUSED) return REFUSED;
      }
      out[name] = value;
    }
    return out;
  };
  named.set(fullName(s.name, namespace), check);
  return check;
}

function primitive(
  name: string,
  named: Map<string, Check>,
  namespace: string | undefined,
): Check | undefined {
  switch (name) {
    case 'null':
      return (v) => (v === null ? null : REFUSED);
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : REFUSED);
    case 'int':
      return (v) =>
        Number.isSafeInteger(v) && (v as number) >= INT_MIN && (v as number) <= INT_MAX ? v : REFUSED;
    case 'long':
      return (v) => (Number.isSafeInteger(v) ? v : REFUSED);
    case 'float':
    case 'double':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? v : REFUSED);
    case 'string':
      return string;
  }
  return named.get(name) ?? named.get(fullName(name, namespace));
}

const string: Check = (v) => (typeof v === 'string' ? v : REFUSED);
const dateTime: Check = (v) => (typeof v === 'string' && DATE_TIME.safeParse(v).success ? v : REFUSED);

function dateTimeType(type: unknown): unknown {
  const text = { type: 'string', format: 'date-time' };
  if (type === 'string') return text;
  if (Array.isArray(type)) return type.map((b) => (b === 'string' ? text : b));
  return type;
}

function fullName(name: string, namespace: string | undefined): string {
  return name.includes('.') || namespace === undefined ? name : `${namespace}.${name}`;
}
