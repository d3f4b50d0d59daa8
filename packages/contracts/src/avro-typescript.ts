/**
 * Writes the TypeScript type a producer passes for an Avro schema (the input of the zod
 * validator from `avroToZod`): fields with a default are optional, `["null", T]` is `T | null`.
 * Used to generate `event-types.ts`; a unit test regenerates it so it never drifts.
 */
export function avroToTypeScript(schema: unknown, indent = ''): string {
  return write(schema, new Map(), undefined, indent);
}

function write(schema: unknown, named: Map<string, string>, ns: string | undefined, indent: string): string {
  if (typeof schema === 'string') return primitive(schema, named, ns);
  if (Array.isArray(schema)) {
    const others = schema.filter((b) => b !== 'null');
    if (others.length !== 1 || schema.length !== 2) throw unsupported(schema);
    return `${write(others[0], named, ns, indent)} | null`;
  }
  if (schema === null || typeof schema !== 'object') throw unsupported(schema);
  const s = schema as Record<string, unknown>;
  switch (s.type) {
    case 'record': {
      const namespace = typeof s.namespace === 'string' ? s.namespace : ns;
      const inner = `${indent}  `;
      const lines = ((s.fields ?? []) as Record<string, unknown>[]).map((f) => {
        const optional = 'default' in f ? '?' : '';
        return `${inner}readonly ${String(f.name)}${optional}: ${write(f.type, named, namespace, inner)};`;
      });
      const text = `{\n${lines.join('\n')}\n${indent}}`;
      named.set(fullName(s.name, namespace), text);
      return text;
    }
    case 'enum': {
      const text = (s.symbols as string[]).map((x) => `'${x}'`).join(' | ');
      named.set(fullName(s.name, typeof s.namespace === 'string' ? s.namespace : ns), text);
      return text;
    }
    case 'array':
      return `readonly (${write(s.items, named, ns, indent)})[]`;
    case 'map':
      return `Readonly<Record<string, ${write(s.values, named, ns, indent)}>>`;
    default:
      if (typeof s.type === 'string' && s.logicalType === undefined) return primitive(s.type, named, ns);
      throw unsupported(schema);
  }
}

function primitive(name: string, named: Map<string, string>, ns: string | undefined): string {
  switch (name) {
    case 'null':
      return 'null';
    case 'boolean':
      return 'boolean';
    case 'int':
    case 'long':
    case 'float':
    case 'double':
      return 'number';
    case 'string':
      return 'string';
  }
  const ref = named.get(name) ?? named.get(fullName(name, ns));
  if (ref === undefined) throw unsupported(name);
  return ref;
}

function fullName(name: unknown, ns: string | undefined): string {
  if (typeof name !== 'string') throw unsupported(name);
  return name.includes('.') || ns === undefined ? name : `${ns}.${name}`;
}

function unsupported(schema: unknown): Error {
  return new TypeError(`Avro schema element not supported by hookstream: ${JSON.stringify(schema)}`);
}
