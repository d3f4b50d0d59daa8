import { describe, expect, it } from 'vitest';
import { forEachLimited } from '../src/for-each-limited.ts';

describe('forEachLimited', () => {
  it('runs every item once, never more than the limit at a time', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(n);
      running--;
    });
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('takes a limit below one as one, and nothing to do as done', async () => {
    const seen: number[] = [];
    await forEachLimited([1, 2], 0, async (n) => {
      seen.push(n);
    });
    expect(seen).toEqual([1, 2]);
    await forEachLimited([], 5, async () => {
      throw new Error('never');
    });
  });

  it('rejects with the first failure', async () => {
    await expect(
      forEachLimited([1, 2, 3], 2, async (n) => {
        if (n === 2) throw new Error('two');
      }),
    ).rejects.toThrow('two');
  });
});
