import { describe, expect, it } from 'vitest';
import { HttpError } from '../src/errors.ts';
import { measureJson, refuseComplexJson } from '../src/json-shape.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const LIMITS = { maxDepth: 64, maxValues: 10_000 };

/** `n` arrays, one inside the other. */
const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

/** A subscriber definition whose filter is `n` nots deep, as issue 41 item 6 sent it. */
function deepFilter(n: number): string {
  return `{"url":"https://x.example.com/","filter":${'{"not":'.repeat(n)}{"exact":{"type":"a"}}${'}'.repeat(n)}}`;
}

function codeOf(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (err) {
    return err instanceof HttpError ? `${err.status} ${err.code} ${err.canRetry}` : String(err);
  }
}

describe('measureJson', () => {
  it('measures depth and values of what JSON.parse reads', () => {
    const text = '{"a": [1, -2.5e3, "x", true, null, {"b": {}}], "c": "d"}';
    expect(measureJson(bytes(text), LIMITS)).toEqual({ depth: 4, values: 10, over: null });
    expect(measureJson(bytes('"just a string"'), LIMITS)).toEqual({ depth: 0, values: 1, over: null });
    expect(measureJson(bytes(' 12 '), LIMITS)).toEqual({ depth: 0, values: 1, over: null });
    expect(measureJson(bytes('[]'), LIMITS)).toEqual({ depth: 1, values: 1, over: null });
  });

  it('passes a depth exactly at the bound and refuses one more', () => {
    expect(measureJson(bytes(arrays(64)), LIMITS)).toMatchObject({ depth: 64, over: null });
    expect(measureJson(bytes(arrays(65)), LIMITS)).toMatchObject({ over: 'depth' });
    const objects = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    expect(measureJson(bytes(objects(64)), LIMITS).over).toBeNull();
    expect(measureJson(bytes(objects(65)), LIMITS).over).toBe('depth');
  });

  it('passes a count of values exactly at the bound and refuses one more', () => {
    // The array itself is one value.
    const list = (n: number) => `[${Array.from({ length: n - 1 }, () => '0').join(',')}]`;
    expect(measureJson(bytes(list(10_000)), LIMITS)).toEqual({ depth: 1, values: 10_000, over: null });
    expect(measureJson(bytes(list(10_001)), LIMITS).over).toBe('values');
    // Member names are not values: 1 object + 5,000 values under 5,000 names.
    const members = Array.from({ length: 5_000 }, (_, i) => `"k${i}":"v"`).join(',');
    expect(measureJson(bytes(`{${members}}`), LIMITS)).toMatchObject({ values: 5_001, over: null });
    expect(measureJson(bytes(`[0,0]`), { maxDepth: 1, maxValues: null }).over).toBeNull();
  });

  it('does not count brackets, quotes or backslashes inside strings', () => {
    const text = JSON.stringify({ s: `${'['.repeat(100)}\\"{{{{ \\\\" ]]]`, t: '\\', u: '"[', v: 'é[ü' });
    expect(measureJson(bytes(text), LIMITS)).toEqual({ depth: 1, values: 5, over: null });
    const names = JSON.stringify({ '[[[': 1, '\\': { '"{': 2 } });
    expect(measureJson(bytes(names), LIMITS)).toEqual({ depth: 2, values: 4, over: null });
    // Not JSON (a string never closed): measured as far as it goes, left to JSON.parse to refuse.
    expect(measureJson(bytes('["[[[[\\"'), LIMITS)).toEqual({ depth: 1, values: 2, over: null });
    expect(measureJson(bytes(`1${arrays(65)}`), LIMITS).over).toBe('depth');
  });

  it('refuses a 1 MiB body of 100,000 nested nots at once, having read only its first levels', () => {
    const body = bytes(deepFilter(100_000));
    expect(body.length).toBeLessThan(1024 * 1024);
    const shape = measureJson(body, LIMITS);
    expect(shape).toEqual({ depth: 65, values: 66, over: 'depth' });
    // The filter a definition may have (MAX_FILTER_DEPTH 8) is far within the bound.
    expect(measureJson(bytes(deepFilter(8)), LIMITS)).toMatchObject({ depth: 11, over: null });
  });

  it('refuses a bound it cannot hold', () => {
    expect(() => measureJson(bytes('[]'), { maxDepth: -1, maxValues: null })).toThrow(RangeError);
    expect(() => measureJson(bytes('[]'), { maxDepth: 1e9, maxValues: null })).toThrow(RangeError);
  });
});

describe('refuseComplexJson', () => {
  it('answers 400 body_too_deep or body_too_complex, not retryable, and lets the rest through', () => {
    expect(codeOf(() => refuseComplexJson(bytes(deepFilter(100_000)), LIMITS))).toBe(
      '400 body_too_deep false',
    );
    const many = `[${Array.from({ length: 20_000 }, () => '1').join(',')}]`;
    expect(codeOf(() => refuseComplexJson(bytes(many), LIMITS))).toBe('400 body_too_complex false');
    expect(codeOf(() => refuseComplexJson(bytes(many), { maxDepth: 64, maxValues: null }))).toBeNull();
    expect(codeOf(() => refuseComplexJson(bytes(deepFilter(8)), LIMITS))).toBeNull();
  });
});
