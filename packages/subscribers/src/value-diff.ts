import { redactUrl } from '@hookstream/contracts';

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

/**
 * A change as tools may show it: a definition's URL redacted on both sides (redactUrl), since
 * a plan's output ends up in terminals and CI logs.
 */
export function publicChange(change: ValueChange): ValueChange {
  if (change.path !== 'url') return change;
  const shown = (v: unknown) => (typeof v === 'string' ? redactUrl(v) : v);
  return { path: change.path, before: shown(change.before), after: shown(change.after) };
}

/** `rate.perSecond: 50 → 20`, `headers.X-Team: (absent) → "billing"`; a URL redacted. */
export function formatChange(change: ValueChange): string {
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  const shown = publicChange(change);
  // Only user info or query values changed: the redacted sides read alike, so say what differs.
  const hidden = shown !== change && shown.before === shown.after ? ' (user info or query values)' : '';
  return `${shown.path}: ${show(shown.before)} → ${show(shown.after)}${hidden}`;
}
