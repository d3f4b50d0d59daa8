import { describe, expect, it } from 'vitest';
import { Slots } from '../src/slots.ts';

describe('Slots', () => {
  it('hands out free slots synchronously and queues the rest in order', async () => {
    const slots = new Slots(2);
    expect(slots.acquire()).toBeUndefined();
    expect(slots.acquire()).toBeUndefined();
    const order: number[] = [];
    const third = slots.acquire()?.then(() => order.push(3));
    const fourth = slots.acquire()?.then(() => order.push(4));
    expect(slots.held).toBe(2);
    slots.release();
    await third;
    expect(order).toEqual([3]);
    slots.release();
    await fourth;
    expect(order).toEqual([3, 4]);
    slots.release();
    slots.release();
    expect(slots.held).toBe(0);
  });

  it('refuses a size below one', () => {
    expect(() => new Slots(0)).toThrow(RangeError);
  });
});
