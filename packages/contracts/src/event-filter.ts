import { z } from 'zod';
import { CE_HEADER } from './headers.ts';

/**
 * A subscriber's `filter`: a small dialect modelled on Knative's trigger filters. A leaf
 * (`exact`, `prefix`, `suffix`) maps names to strings and holds when every one matches; `all`,
 * `any` and `not` combine filters. A name is an attribute the event carries (`type`, `source`,
 * `tenant`, `subject`, or any other CloudEvents attribute a producer sets as a `ce_` header) or,
 * starting with `/`, a JSON pointer into the event's data.
 */
export type EventFilter =
  | { readonly exact: Readonly<Record<string, string>> }
  | { readonly prefix: Readonly<Record<string, string>> }
  | { readonly suffix: Readonly<Record<string, string>> }
  | { readonly all: readonly EventFilter[] }
  | { readonly any: readonly EventFilter[] }
  | { readonly not: EventFilter };

/** How deep filters may nest, and how many nodes one may have: a filter runs on every event. */
export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_NODES = 64;
const MAX_NAMES_PER_LEAF = 16;
const MAX_VALUE_LENGTH = 1024;

/** A CloudEvents attribute name (lower-case letters and digits). */
const ATTRIBUTE_NAME = /^[a-z0-9]{1,20}$/;
/** An RFC 6901 JSON pointer that names a field (not the whole document). */
const DATA_POINTER = /^(\/([^~/]|~[01])*)+$/;

/** Either of the two, as one pattern: the OpenAPI document carries a pattern, not a refinement. */
const FILTER_NAME = new RegExp(`${ATTRIBUTE_NAME.source}|${DATA_POINTER.source}`);

const FilterName = z.string().max(256).regex(FILTER_NAME, {
  error: 'an attribute name (lower-case letters and digits) or a JSON pointer into the data ("/a/b")',
});

const Matches = z
  .record(FilterName, z.string().max(MAX_VALUE_LENGTH))
  .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= MAX_NAMES_PER_LEAF, {
    error: `1 to ${MAX_NAMES_PER_LEAF} names`,
  })
  // The refinement's bounds, stated in the JSON Schema the API's document is generated as.
  .meta({ minProperties: 1, maxProperties: MAX_NAMES_PER_LEAF });

const FilterNode: z.ZodType<EventFilter> = z.lazy(() =>
  z.union([
    z.strictObject({ exact: Matches }),
    z.strictObject({ prefix: Matches }),
    z.strictObject({ suffix: Matches }),
    z.strictObject({ all: z.array(FilterNode).min(1).max(MAX_FILTER_NODES) }),
    z.strictObject({ any: z.array(FilterNode).min(1).max(MAX_FILTER_NODES) }),
    z.strictObject({ not: FilterNode }),
  ]),
);

export const EventFilter = FilterNode.superRefine((filter, ctx) => {
  const { depth, nodes } = measure(filter);
  if (depth > MAX_FILTER_DEPTH)
    ctx.addIssue({ code: 'custom', message: `nests ${depth} deep; at most ${MAX_FILTER_DEPTH}` });
  if (nodes > MAX_FILTER_NODES)
    ctx.addIssue({ code: 'custom', message: `has ${nodes} parts; at most ${MAX_FILTER_NODES}` });
});

function measure(filter: EventFilter): { depth: number; nodes: number } {
  const children =
    'all' in filter ? filter.all : 'any' in filter ? filter.any : 'not' in filter ? [filter.not] : [];
  let depth = 0;
  let nodes = 1;
  for (const child of children) {
    const m = measure(child);
    depth = Math.max(depth, m.depth);
    nodes += m.nodes;
  }
  return { depth: depth + 1, nodes };
}

/**
 * Whether a filter as written (not parsed yet) nests deeper than MAX_FILTER_DEPTH or has more
 * than MAX_FILTER_NODES parts, measured without recursion: zod's recursive parse of a very deep
 * one would exhaust the stack before its own check could refuse it. Parse only what this passes.
 */
export function filterTooLarge(raw: unknown): boolean {
  const stack: [unknown, number][] = [[raw, 1]];
  let parts = 0;
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== 'object') continue;
    if (depth > MAX_FILTER_DEPTH || ++parts > MAX_FILTER_NODES) return true;
    const n = node as { all?: unknown; any?: unknown; not?: unknown };
    for (const list of [n.all, n.any])
      if (Array.isArray(list)) for (const child of list) stack.push([child, depth + 1]);
    if (n.not !== undefined) stack.push([n.not, depth + 1]);
  }
  return false;
}

/** The refusal of a filter filterTooLarge finds, as parsers report a field. */
export const FILTER_TOO_LARGE = `filter: nests deeper than ${MAX_FILTER_DEPTH} or has more than ${MAX_FILTER_NODES} parts`;

/** Whether a name is a JSON pointer into the data (else an attribute). */
export function isDataPointer(name: string): boolean {
  return name.startsWith('/');
}

/** Every name the filter tests, with the leaf kind that tests it. */
export function filterNames(filter: EventFilter): { kind: 'exact' | 'prefix' | 'suffix'; name: string }[] {
  if ('all' in filter) return filter.all.flatMap(filterNames);
  if ('any' in filter) return filter.any.flatMap(filterNames);
  if ('not' in filter) return filterNames(filter.not);
  const kind = 'exact' in filter ? 'exact' : 'prefix' in filter ? 'prefix' : 'suffix';
  return Object.keys(leafMatches(filter)).map((name) => ({ kind, name }));
}

/** Whether the filter reads the event's data: if not, it runs before the event is decoded. */
export function filterNeedsData(filter: EventFilter): boolean {
  return filterNames(filter).some((n) => isDataPointer(n.name));
}

/** What a filter reads of one event: its Kafka headers and, once decoded, its data. */
export interface FilterInput {
  readonly headers: Readonly<Record<string, string>>;
  /** Undefined while not decoded: a data pointer then matches nothing. */
  readonly data?: unknown;
}

/** Held, or refused by the part named (a path in the filter, e.g. `all[1].prefix./region`). */
export type FilterVerdict = { readonly pass: true } | { readonly pass: false; readonly refusedBy: string };

const PASS: FilterVerdict = { pass: true };

/** The filter's verdict on one event. Pure, and total: a missing value never matches. */
export function evaluateFilter(filter: EventFilter, input: FilterInput, path = 'filter'): FilterVerdict {
  if ('all' in filter) {
    for (const [i, child] of filter.all.entries()) {
      const verdict = evaluateFilter(child, input, `${path}.all[${i}]`);
      if (!verdict.pass) return verdict;
    }
    return PASS;
  }
  if ('any' in filter) {
    const held = filter.any.some((child) => evaluateFilter(child, input).pass);
    return held ? PASS : { pass: false, refusedBy: `${path}.any` };
  }
  if ('not' in filter)
    return evaluateFilter(filter.not, input).pass ? { pass: false, refusedBy: `${path}.not` } : PASS;
  const kind = 'exact' in filter ? 'exact' : 'prefix' in filter ? 'prefix' : 'suffix';
  for (const [name, wanted] of Object.entries(leafMatches(filter))) {
    const value = isDataPointer(name) ? dataText(input.data, name, kind) : attribute(input.headers, name);
    if (value === undefined || !matches(kind, value, wanted))
      return { pass: false, refusedBy: `${path}.${kind}.${name}` };
  }
  return PASS;
}

function leafMatches(filter: EventFilter): Readonly<Record<string, string>> {
  if ('exact' in filter) return filter.exact;
  if ('prefix' in filter) return filter.prefix;
  if ('suffix' in filter) return filter.suffix;
  return {};
}

function matches(kind: 'exact' | 'prefix' | 'suffix', value: string, wanted: string): boolean {
  if (kind === 'exact') return value === wanted;
  return kind === 'prefix' ? value.startsWith(wanted) : value.endsWith(wanted);
}

/** The attribute's `ce_` header (`type` is `ce_type`, `tenant` is `ce_tenant`, and so on). */
function attribute(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const header = name === 'tenant' ? CE_HEADER.tenant : `ce_${name}`;
  return headers[header];
}

/**
 * The data field as text: a string as it is; for `exact`, a number or boolean as JSON writes it.
 * Anything else (absent, null, an object) matches nothing.
 */
function dataText(data: unknown, pointer: string, kind: 'exact' | 'prefix' | 'suffix'): string | undefined {
  const value = resolvePointer(data, pointer);
  if (typeof value === 'string') return value;
  if (kind === 'exact' && (typeof value === 'number' || typeof value === 'boolean'))
    return JSON.stringify(value);
  return undefined;
}

/** RFC 6901: the value a pointer names in a JSON value, or undefined. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  let at: unknown = document;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(at)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      at = at[Number(token)];
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, token)) {
      at = (at as Record<string, unknown>)[token];
    } else return undefined;
  }
  return at;
}

/** The pointer's tokens, unescaped. */
export function pointerTokens(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~'));
}
