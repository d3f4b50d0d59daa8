import { describe, expect, it } from 'vitest';
import { RecentRead } from '../src/recent-read.ts';

/** A read whose answers the test releases one at a time, counting the calls. */
function reads() {
  const pending: ((value: number) => void)[] = [];
  let calls = 0;
  const read = () =>
    new Promise<number>((resolve, reject) => {
      calls++;
      pending.push((v) => (v < 0 ? reject(new Error('read failed')) : resolve(v)));
    });
  return { read, answer: (v: number) => pending.shift()?.(v), calls: () => calls };
}

describe('RecentRead', () => {
  it('only the first call waits; a young result is answered; an old one is answered while one read replaces it', async () => {
    let now = 0;
    const r = reads();
    const cache = new RecentRead(r.read, { maxAgeMs: 1000, maxStaleMs: 10_000 }, () => now);
    const first = cache.get();
    const second = cache.get();
    expect(r.calls()).toBe(1);
    r.answer(1);
    expect([await first, await second]).toEqual([1, 1]);
    now = 999;
    expect(await cache.get()).toBe(1);
    expect(r.calls()).toBe(1);
    now = 1000;
    expect(await cache.get()).toBe(1);
    expect(await cache.get()).toBe(1);
    expect(r.calls()).toBe(2);
    r.answer(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(await cache.get()).toBe(2);
  });

  it('a failed first read is thrown and tried again; a failed refresh keeps the last result', async () => {
    let now = 0;
    const r = reads();
    const cache = new RecentRead(r.read, { maxAgeMs: 1000, maxStaleMs: 10_000 }, () => now);
    const failed = cache.get();
    r.answer(-1);
    await expect(failed).rejects.toThrow('read failed');
    const retried = cache.get();
    r.answer(7);
    expect(await retried).toBe(7);
    now = 5000;
    expect(await cache.get()).toBe(7);
    r.answer(-1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.get()).toBe(7);
    expect(r.calls()).toBe(4);
  });

  it('a result older than maxStaleMs is not answered: the caller waits for a fresh read', async () => {
    let now = 0;
    const r = reads();
    const cache = new RecentRead(r.read, { maxAgeMs: 1000, maxStaleMs: 10_000 }, () => now);
    const first = cache.get();
    r.answer(1);
    expect(await first).toBe(1);
    now = 10_000;
    let settled = false;
    const fresh = cache.get().then((v) => {
      settled = true;
      return v;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    r.answer(2);
    expect(await fresh).toBe(2);
  });
});
