import { HttpError } from './errors.ts';

/** How deep a JSON text may nest and how many values it may hold; null: any number of values. */
export interface JsonLimits {
  readonly maxDepth: number;
  readonly maxValues: number | null;
}

/**
 * What a scan found: the deepest nesting (a top-level object or array is 1), the values counted
 * (containers, strings other than member names, numbers, literals) and the first limit passed.
 * Once a limit is passed the scan stops, so `depth` and `values` are then lower bounds.
 */
export interface JsonShape {
  readonly depth: number;
  readonly values: number;
  readonly over: 'depth' | 'values' | null;
}

/** The largest maxDepth a caller may set: far past any body worth parsing. */
const MAX_DEPTH_LIMIT = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Ends a number or literal: any structure or whitespace, not only what valid JSON lets follow
 * one, so no bracket of a text that is not JSON goes uncounted behind a scalar.
 */
function endsScalar(c: number): boolean {
  return (
    c === COMMA ||
    c === COLON ||
    c === QUOTE ||
    c === OPEN_OBJECT ||
    c === CLOSE_OBJECT ||
    c === OPEN_ARRAY ||
    c === CLOSE_ARRAY ||
    isWhitespace(c)
  );
}

/**
 * The index of the quote that closes a string whose text starts at `from`, or the length when
 * none does: a backslash escapes the byte after it, whatever it is.
 */
function closingQuote(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return bytes.length;
}

/**
 * Measures a JSON text (UTF-8 bytes) in one pass, without parsing it and without recursion, so a
 * body can be refused before anything recursive (a zod schema, a walk of the parsed value) sees
 * it. Bytes of multi-byte UTF-8 characters are all ≥ 0x80, so they never look like structure.
 * Text that is not JSON is measured as far as it looks like JSON; JSON.parse refuses it later.
 */
export function measureJson(bytes: Uint8Array, limits: JsonLimits): JsonShape {
  // The depth sizes an allocation: bounded here, whoever sets it.
  if (!Number.isInteger(limits.maxDepth) || limits.maxDepth < 0 || limits.maxDepth > MAX_DEPTH_LIMIT)
    throw new RangeError(`maxDepth must be a whole number from 0 to ${MAX_DEPTH_LIMIT}`);
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  // Whether each open container is an object: bounded by maxDepth, as the scan stops past it.
  const inObject = new Uint8Array(limits.maxDepth + 1);
  let depth = 0;
  let deepest = 0;
  let values = 0;
  let inScalar = false;
  // In an object after `{` or `,`: the next string is a member name, not a value.
  let expectName = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (inScalar) {
      if (!endsScalar(c)) continue;
      inScalar = false;
    }
    if (isWhitespace(c)) continue;
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
      continue;
    }
    if (c === COMMA) {
      expectName = depth > 0 && inObject[depth] === 1;
      continue;
    }
    if (c === COLON) {
      expectName = false;
      continue;
    }
    if (c === QUOTE) {
      i = closingQuote(bytes, i + 1);
      if (expectName) {
        expectName = false;
        continue;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (depth > limits.maxDepth) return { depth: deepest, values: values + 1, over: 'depth' };
      inObject[depth] = c === OPEN_OBJECT ? 1 : 0;
      expectName = c === OPEN_OBJECT;
    } else {
      inScalar = true;
    }
    values++;
    if (values > maxValues) return { depth: deepest, values, over: 'values' };
  }
  return { depth: deepest, values, over: null };
}

/**
 * Refuses (400) a JSON body that nests deeper than `maxDepth` or holds more than `maxValues`
 * values, before it is parsed: the parse and the schemas after it cost CPU and stack with the
 * depth and the number of values, not only with the bytes. Nothing was read into a value yet,
 * so nothing was written; the same body again is refused again (not retryable).
 */
export function refuseComplexJson(bytes: Uint8Array, limits: JsonLimits): void {
  const shape = measureJson(bytes, limits);
  if (shape.over === 'depth')
    throw new HttpError(400, 'body_too_deep', `the body nests deeper than ${limits.maxDepth} levels`);
  if (shape.over === 'values')
    throw new HttpError(400, 'body_too_complex', `the body holds more than ${limits.maxValues} values`);
}
