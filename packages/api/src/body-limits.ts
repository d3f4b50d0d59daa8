/**
 * How deep a body may nest and how many values it may hold, checked on the bytes before
 * JSON.parse: the routes' zod schemas recurse (a filter) and cost CPU per value, so a body inside
 * the byte limit could exhaust the stack or hold a core for a tenant's whole rate. The largest
 * legitimate bodies are far within: a definition nests about 17 deep (a filter MAX_FILTER_DEPTH
 * 8 deep of `all` is an object and an array a level) and holds about 1,200 values (64 filter
 * parts of 16 names), an ack or a replay about 1,000 ids. At the bound a body is parsed and
 * validated in tens of milliseconds.
 */
export const MAX_BODY_DEPTH = 64;
export const MAX_BODY_VALUES = 10_000;
export const BODY_JSON_LIMITS = { maxDepth: MAX_BODY_DEPTH, maxValues: MAX_BODY_VALUES } as const;
