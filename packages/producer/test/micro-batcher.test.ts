import { describe, expect, it } from 'vitest';
import { MicroBatcher } from '../src/micro-batcher.ts';

function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  let reject: (err: unknown) => void = () => undefined;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('MicroBatcher', () => {
  it('writes submissions of one turn together and gives each caller its own results', async () => {
    const writes: number[][] = [];
    const batcher = new MicroBatcher<number, string>({
      flush: async (items) => {
        writes.push(items);
        return items.map((n) => `r${n}`);
      },
      sizeOf: () => 1,
    });
    const results = await Promise.all([batcher.submit([1]), batcher.submit([2, 3]), batcher.submit([4])]);
    expect(results).toEqual([['r1'], ['r2', 'r3'], ['r4']]);
    expect(writes).toEqual([[1, 2, 3, 4]]);
  });

  it('does not resolve a caller before its write finished, and queues while writes are in flight', async () => {
    const gate = deferred<void>();
    const writes: number[][] = [];
    const batcher = new MicroBatcher<number, number>({
      flush: async (items) => {
        writes.push(items);
        await gate.promise;
        return items;
      },
      sizeOf: () => 1,
      maxInFlight: 1,
    });
    let settled = false;
    const first = batcher.submit([1]).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    const second = batcher.submit([2]);
    const third = batcher.submit([3]);
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(writes).toEqual([[1]]);
    gate.resolve();
    expect(await first).toEqual([1]);
    expect(await Promise.all([second, third])).toEqual([[2], [3]]);
    expect(writes).toEqual([[1], [2, 3]]);
  });

  it('fails every caller of a failed write and keeps working afterwards', async () => {
    let fail = true;
    const batcher = new MicroBatcher<number, number>({
      flush: async (items) => {
        if (fail) throw new Error('broker gone');
        return items;
      },
      sizeOf: () => 1,
    });
    const outcomes = await Promise.allSettled([batcher.submit([1]), batcher.submit([2])]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batcher.submit([3])).toEqual([3]);
  });

  it('keeps a write under the item and byte limits without splitting a submission', async () => {
    const writes: number[][] = [];
    const batcher = new MicroBatcher<number, number>({
      flush: async (items) => {
        writes.push(items);
        return items;
      },
      sizeOf: (n) => n,
      maxBatchItems: 3,
      maxBatchBytes: 100,
      maxInFlight: 1,
    });
    await Promise.all([
      batcher.submit([1, 1]),
      batcher.submit([1, 1]),
      batcher.submit([90]),
      batcher.submit([20]),
    ]);
    expect(writes).toEqual([[1, 1], [1, 1, 90], [20]]);
  });

  it('reports idle once queued and in-flight writes are done', async () => {
    const gate = deferred<void>();
    const batcher = new MicroBatcher<number, number>({
      flush: async (items) => {
        await gate.promise;
        return items;
      },
      sizeOf: () => 1,
    });
    const work = batcher.submit([1]);
    let idle = false;
    const waiting = batcher.idle().then(() => {
      idle = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(false);
    gate.resolve();
    await work;
    await waiting;
    expect(idle).toBe(true);
  });

  it('refuses submissions beyond its record or byte bound with QUEUE_FULL, and takes them again once acknowledged', async () => {
    const gate = deferred<void>();
    const writes: number[][] = [];
    const batcher = new MicroBatcher<number, number>({
      flush: async (items) => {
        writes.push(items);
        await gate.promise;
        return items;
      },
      sizeOf: (n) => n,
      maxQueuedItems: 3,
      maxQueuedBytes: 100,
    });
    const first = batcher.submit([1, 2]);
    await expect(batcher.submit([3, 4])).rejects.toMatchObject({ code: 'QUEUE_FULL', canRetry: true });
    await expect(batcher.submit([99])).rejects.toMatchObject({ code: 'QUEUE_FULL' });
    const third = batcher.submit([5]);
    expect(batcher.held).toEqual({ items: 3, bytes: 8 });
    gate.resolve();
    expect(await Promise.all([first, third])).toEqual([[1, 2], [5]]);
    expect(writes.flat()).toEqual([1, 2, 5]);
    expect(batcher.held).toEqual({ items: 0, bytes: 0 });
    expect(await batcher.submit([3, 4])).toEqual([3, 4]);
  });

  it('lets a submission be withdrawn while queued, never once a write took it', async () => {
    const gate = deferred<void>();
    const writes: number[][] = [];
    const batcher = new MicroBatcher<number, number>({
      flush: async (items) => {
        writes.push(items);
        await gate.promise;
        return items;
      },
      sizeOf: () => 1,
      maxInFlight: 1,
    });
    const inFlight = batcher.submitCancellable([1]);
    await new Promise((ok) => setImmediate(ok));
    const queued = batcher.submitCancellable([2]);
    expect(queued.cancel(new Error('timed out'))).toBe(true);
    await expect(queued.result).rejects.toThrow('timed out');
    expect(inFlight.cancel(new Error('timed out'))).toBe(false);
    gate.resolve();
    expect(await inFlight.result).toEqual([1]);
    await batcher.idle();
    expect(writes).toEqual([[1]]);
    expect(batcher.held).toEqual({ items: 0, bytes: 0 });
  });
});
