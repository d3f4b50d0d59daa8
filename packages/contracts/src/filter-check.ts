import type { EventSchema } from './event-catalog.ts';
import { type EventFilter, filterNames, isDataPointer, pointerTokens } from './event-filter.ts';
import type { SubscriberDefinition } from './subscriber.ts';

/** Avro's primitive type names: what a pointer can end on besides records, enums, arrays and maps. */
const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

/**
 * Why the filter could never be evaluated against the event types a subscriber takes: a data
 * pointer that names no field of any of their schemas, or a `prefix`/`suffix` on a field that is
 * never text. Empty: every part can hold. `apply` refuses a definition with any.
 */
export function filterProblems(filter: EventFilter, schemas: readonly EventSchema[]): string[] {
  const problems: string[] = [];
  for (const { kind, name } of filterNames(filter)) {
    if (!isDataPointer(name)) continue;
    const ends = schemas.flatMap((s) => pointerEnds(s.avro, pointerTokens(name)));
    if (ends.length === 0) {
      const types = schemas.map((s) => s.type).join(', ') || '(none)';
      problems.push(`${kind}.${name}: no field at that path in the data of ${types}`);
    } else if (kind !== 'exact' && !ends.some((t) => t === 'string' || t === 'enum')) {
      problems.push(
        `${kind}.${name}: ${kind} needs a text field, and it is ${[...new Set(ends)].join(' or ')}`,
      );
    }
  }
  return problems;
}

/**
 * filterProblems for a definition: against the schemas of the types it takes (every type of the
 * catalog for '*'), each problem prefixed with `filter.`; and a `batch.groupBy` pointer that
 * names no field of any of them. Empty when every pointer can hold.
 */
export function definitionFilterProblems(
  definition: Pick<SubscriberDefinition, 'filter' | 'eventTypes' | 'batch'>,
  catalog: ReadonlyMap<string, EventSchema>,
): string[] {
  const groupBy = definition.batch?.groupBy;
  const pointer = groupBy !== undefined && isDataPointer(groupBy) ? groupBy : null;
  if (definition.filter === undefined && pointer === null) return [];
  const schemas = definition.eventTypes.includes('*')
    ? [...catalog.values()]
    : definition.eventTypes.flatMap((type) => catalog.get(type) ?? []);
  const problems =
    definition.filter === undefined
      ? []
      : filterProblems(definition.filter, schemas).map((p) => `filter.${p}`);
  if (pointer !== null && !schemas.some((s) => pointerEnds(s.avro, pointerTokens(pointer)).length > 0))
    problems.push(
      `batch.groupBy: no field at ${pointer} in the data of ${schemas.map((s) => s.type).join(', ') || '(none)'}`,
    );
  return problems;
}

/** The Avro type names a pointer can end on in a schema (union branches each count). */
function pointerEnds(root: unknown, tokens: readonly string[]): string[] {
  const named = new Map<string, unknown>();
  collectNamed(root, named);
  const walk = (schema: unknown, at: number): string[] => {
    if (typeof schema === 'string') {
      if (PRIMITIVES.has(schema)) return at === tokens.length ? [schema] : [];
      const target = named.get(schema);
      return target === undefined ? [] : walk(target, at);
    }
    if (Array.isArray(schema)) return schema.flatMap((branch) => walk(branch, at));
    if (schema === null || typeof schema !== 'object') return [];
    const s = schema as { type?: unknown; fields?: unknown; items?: unknown; values?: unknown };
    if (at === tokens.length) return [typeof s.type === 'string' ? s.type : 'unknown'];
    const token = tokens[at] as string;
    switch (s.type) {
      case 'record': {
        const field = (Array.isArray(s.fields) ? s.fields : []).find(
          (f: { name?: unknown }) => f.name === token,
        ) as { type?: unknown } | undefined;
        return field === undefined ? [] : walk(field.type, at + 1);
      }
      case 'array':
        return /^(0|[1-9][0-9]*)$/.test(token) ? walk(s.items, at + 1) : [];
      case 'map':
        return walk(s.values, at + 1);
      default:
        return typeof s.type === 'string' || Array.isArray(s.type) ? walk(s.type, at) : [];
    }
  };
  return walk(root, 0);
}

/** Named types (records, enums, fixed) by short and full name, for references to them. */
function collectNamed(schema: unknown, named: Map<string, unknown>, namespace?: string): void {
  if (Array.isArray(schema)) {
    for (const branch of schema) collectNamed(branch, named, namespace);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  const s = schema as {
    name?: unknown;
    namespace?: unknown;
    fields?: unknown;
    items?: unknown;
    values?: unknown;
    type?: unknown;
  };
  const ns = typeof s.namespace === 'string' ? s.namespace : namespace;
  if (typeof s.name === 'string') {
    named.set(s.name, schema);
    if (ns !== undefined) named.set(`${ns}.${s.name}`, schema);
  }
  if (Array.isArray(s.fields))
    for (const f of s.fields as { type?: unknown }[]) collectNamed(f.type, named, ns);
  collectNamed(s.items, named, ns);
  collectNamed(s.values, named, ns);
  if (typeof s.type === 'object') collectNamed(s.type, named, ns);
}
