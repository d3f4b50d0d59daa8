/** One difference between two JSON values, at a dotted path; undefined = absent. */
export interface ValueChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The differences between two JSON values, field by field through objects (arrays, and the
 * paths in `whole`, compare whole: `eventTypes: ["a"] → ["a","b"]` reads better than per-index
 * changes). Keys in sorted order, so the output is stable. Pure.
 */
export function diffValues(
  before: unknown,
  after: unknown,
  options: { readonly whole?: readonly string[] } = {},
  path = '',
): ValueChange[] {
  if (isPlainObject(before) && isPlainObject(after) && !options.whole?.includes(path)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => diffValues(before[k], after[k], options, path === '' ? k : `${path}.${k}`));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path: path === '' ? '(value)' : path, before, after }];
}

/** `rate.perSecond: 50 → 20`, `headers.X-Team: (absent) → "billing"`. */
export function formatChange(change: ValueChange): string {
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  return `${change.path}: ${show(change.before)} → ${show(change.after)}`;
}
