import { describe, expect, it } from 'vitest';
import { DedupWindow } from '../src/dedup-window.ts';

describe('DedupWindow', () => {
  it('returns the first result for an id seen within the window, and forgets it afterwards', async () => {
    let now = 0;
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 10, now: () => now });
    window.remember('a', Promise.resolve('first'));
    now = 999;
    expect(await window.lookup('a')).toBe('first');
    now = 1000;
    expect(window.lookup('a')).toBeUndefined();
  });

  it('forgets a failed write so a retry writes again', async () => {
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 10 });
    const failed = Promise.reject(new Error('no ack'));
    window.remember('a', failed);
    await expect(failed).rejects.toThrow();
    expect(window.lookup('a')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest first', () => {
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) window.remember(id, Promise.resolve(id));
    expect(window.size).toBe(2);
    expect(window.lookup('a')).toBeUndefined();
    expect(window.lookup('c')).toBeDefined();
  });

  it('remembers nothing with a zero window', () => {
    const window = new DedupWindow<string>({ windowMs: 0, maxEntries: 2 });
    window.remember('a', Promise.resolve('a'));
    expect(window.lookup('a')).toBeUndefined();
  });
});
