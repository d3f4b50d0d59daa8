/** What an example's values are made from: a fixed time, so the same schema gives the same data. */
export interface ExampleClock {
  readonly nowMs: number;
}

/** A uuid that is plainly an example (version 4, all zeros but its version and variant). */
const EXAMPLE_UUID = '00000000-0000-4000-8000-000000000000';
/** Named types (records, enums) may refer to themselves: an example stops going deeper here. */
const MAX_DEPTH = 32;

/**
 * Example data for an Avro schema (parsed .avsc JSON), as a portal shows it and send-example
 * sends it: every record field filled, strings named after their field, ints and longs 1, doubles
 * 1.5, booleans true, an enum's first symbol, arrays and maps with one item, a union's first
 * non-null branch; `timestamp-millis`/`-micros` and a string field of `"format": "date-time"` the
 * given time, `uuid` a fixed one. Pure.
 */
export function exampleData(avroSchema: unknown, clock: ExampleClock = { nowMs: 0 }): unknown {
  return new Example(clock).of(avroSchema, 'value', undefined, 0);
}

class Example {
  readonly #clock: ExampleClock;
  readonly #named = new Map<string, Record<string, unknown>>();

  constructor(clock: ExampleClock) {
    this.#clock = clock;
  }

  of(schema: unknown, field: string, namespace: string | undefined, depth: number): unknown {
    if (depth > MAX_DEPTH) return null;
    if (typeof schema === 'string') return this.#primitive(schema, field, namespace, depth);
    if (Array.isArray(schema)) {
      const branch = schema.find((b) => b !== 'null');
      return branch === undefined ? null : this.of(branch, field, namespace, depth + 1);
    }
    if (schema === null || typeof schema !== 'object') return null;
    const s = schema as Record<string, unknown>;
    const logical = this.#logical(s);
    if (logical !== undefined) return logical;
    switch (s.type) {
      case 'record':
      case 'error':
        return this.#record(s, namespace, depth);
      case 'enum': {
        this.#remember(s, namespace);
        return Array.isArray(s.symbols) ? (s.symbols[0] ?? null) : null;
      }
      case 'array':
        return [this.of(s.items, field, namespace, depth + 1)];
      case 'map':
        return { key: this.of(s.values, field, namespace, depth + 1) };
      case 'fixed':
        return '\u0000'.repeat(typeof s.size === 'number' ? Math.min(s.size, 64) : 0);
      case 'string':
        return s.format === 'date-time' ? this.#time() : `example ${field}`;
      default:
        return this.of(s.type, field, namespace, depth + 1);
    }
  }

  #record(s: Record<string, unknown>, namespace: string | undefined, depth: number): unknown {
    const ns = this.#remember(s, namespace);
    const out: Record<string, unknown> = {};
    const fields = Array.isArray(s.fields) ? (s.fields as Record<string, unknown>[]) : [];
    for (const f of fields) {
      if (typeof f.name !== 'string') continue;
      out[f.name] =
        f.format === 'date-time' && isText(f.type) ? this.#time() : this.of(f.type, f.name, ns, depth + 1);
    }
    return out;
  }

  #primitive(name: string, field: string, namespace: string | undefined, depth: number): unknown {
    switch (name) {
      case 'null':
        return null;
      case 'boolean':
        return true;
      case 'int':
      case 'long':
        return 1;
      case 'float':
      case 'double':
        return 1.5;
      case 'string':
        return `example ${field}`;
      case 'bytes':
        return '';
    }
    const named = this.#named.get(name) ?? this.#named.get(qualified(name, namespace));
    return named === undefined ? null : this.of(named, field, namespace, depth + 1);
  }

  #logical(s: Record<string, unknown>): unknown {
    switch (s.logicalType) {
      case 'timestamp-millis':
      case 'local-timestamp-millis':
        return this.#clock.nowMs;
      case 'timestamp-micros':
      case 'local-timestamp-micros':
        return this.#clock.nowMs * 1000;
      case 'date':
        return Math.floor(this.#clock.nowMs / 86_400_000);
      case 'uuid':
        return EXAMPLE_UUID;
      default:
        return undefined;
    }
  }

  #time(): string {
    return new Date(this.#clock.nowMs).toISOString();
  }

  /** Keeps a named type for later references to it; the namespace its fields resolve in. */
  #remember(s: Record<string, unknown>, namespace: string | undefined): string | undefined {
    const ns = typeof s.namespace === 'string' ? s.namespace : namespace;
    if (typeof s.name === 'string') this.#named.set(qualified(s.name, ns), s);
    return ns;
  }
}

/** A string, or an optional one: what a field-level `"format": "date-time"` applies to. */
function isText(type: unknown): boolean {
  return type === 'string' || (Array.isArray(type) && type.includes('string'));
}

function qualified(name: string, namespace: string | undefined): string {
  return name.includes('.') || namespace === undefined ? name : `${namespace}.${name}`;
}
