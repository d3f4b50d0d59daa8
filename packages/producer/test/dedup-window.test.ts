import { describe, expect, it } from 'vitest';
import { DedupWindow } from '../src/dedup-window.ts';

describe('DedupWindow', () => {
  it('returns the first result for an id seen within the window, and forgets it afterwards', async () => {
    let now = 0;
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 10, now: () => now });
    window.claim('a', Promise.resolve('first'));
    window.settle('a', 'first');
    now = 999;
    expect(await window.lookup('a')).toBe('first');
    now = 1000;
    expect(window.lookup('a')).toBeUndefined();
  });

  it('hands a duplicate the pending write while the first is in flight', async () => {
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 10 });
    const write = Promise.withResolvers<string>();
    window.claim('a', write.promise);
    const duplicate = window.lookup('a');
    write.resolve('stored');
    expect(await duplicate).toBe('stored');
  });

  it('tells the fingerprint an id was claimed with', async () => {
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 10 });
    window.claim('a', Promise.resolve('stored'), 'digest-1');
    const found = window.find('a');
    expect(found?.fingerprint).toBe('digest-1');
    expect(await found?.result).toBe('stored');
    expect(window.find('b')).toBeUndefined();
  });

  it('forgets a failed write so a retry writes again', () => {
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 10 });
    window.claim('a', new Promise<string>(() => undefined));
    window.forget('a');
    expect(window.lookup('a')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest first', () => {
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 2 });
    for (const id of ['a', 'b', 'c']) window.claim(id, Promise.resolve(id));
    expect(window.size).toBe(2);
    expect(window.lookup('a')).toBeUndefined();
    expect(window.lookup('c')).toBeDefined();
  });

  it('keeps an id claimed again after a failure for a whole window', () => {
    let now = 0;
    const window = new DedupWindow<string>({ windowMs: 1000, maxEntries: 10, now: () => now });
    window.claim('a', Promise.resolve('a'));
    window.forget('a');
    now = 500;
    window.claim('a', Promise.resolve('a'));
    now = 1200;
    window.claim('b', Promise.resolve('b')); // evicts what expired by now
    expect(window.lookup('a')).toBeDefined();
    now = 1500;
    window.claim('c', Promise.resolve('c'));
    expect(window.lookup('a')).toBeUndefined();
    expect(window.size).toBe(2);
  });

  it('stays bounded under a long stream of ids', () => {
    let now = 0;
    const window = new DedupWindow<number>({ windowMs: 100, maxEntries: 1000, now: () => now });
    for (let i = 0; i < 50_000; i++) {
      now = i;
      window.claim(String(i), Promise.resolve(i));
    }
    expect(window.size).toBeLessThanOrEqual(101);
    expect(window.lookup('49999')).toBeDefined();
  });

  it('remembers nothing with a zero window', () => {
    const window = new DedupWindow<string>({ windowMs: 0, maxEntries: 2 });
    window.claim('a', Promise.resolve('a'));
    expect(window.lookup('a')).toBeUndefined();
  });
});
