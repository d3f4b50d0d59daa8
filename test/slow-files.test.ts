import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLOWEST_FIRST, slowRank } from './runner/slow-files.ts';

const root = resolve(import.meta.dirname, '..');

describe('the shared phase starts its slowest files first', () => {
  it('names only files that exist, once each', () => {
    expect(SLOWEST_FIRST.filter((f) => !existsSync(join(root, f)))).toEqual([]);
    expect(new Set(SLOWEST_FIRST).size).toBe(SLOWEST_FIRST.length);
  });

  it('ranks a listed file by its place, by absolute path too, and any other after them all', () => {
    const [first = '', second = ''] = SLOWEST_FIRST;
    expect(slowRank(join(root, first))).toBe(0);
    expect(slowRank(second)).toBe(1);
    expect(slowRank(join(root, 'test/integration/redis.test.ts'))).toBe(SLOWEST_FIRST.length);
  });
});
