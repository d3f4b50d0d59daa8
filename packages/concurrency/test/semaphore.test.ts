import { describe, expect, it } from 'vitest';
import { Semaphore } from '../src/index.ts';

describe('Semaphore', () => {
  it('hands out free semaphore synchronously and queues the rest in order', async () => {
    const semaphore = new Semaphore(2);
    expect(semaphore.acquire()).toBeUndefined();
    expect(semaphore.acquire()).toBeUndefined();
    const order: number[] = [];
    const third = semaphore.acquire()?.then(() => order.push(3));
    const fourth = semaphore.acquire()?.then(() => order.push(4));
    expect(semaphore.held).toBe(2);
    semaphore.release();
    await third;
    expect(order).toEqual([3]);
    semaphore.release();
    await fourth;
    expect(order).toEqual([3, 4]);
    semaphore.release();
    semaphore.release();
    expect(semaphore.held).toBe(0);
  });

  it('refuses a size below one', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
