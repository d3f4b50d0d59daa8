import { describe, expect, it } from 'vitest';
import { FairShareCap } from '../src/index.ts';

/** Acquires and records, in grant order, which holder got each slot. */
function taker(cap: FairShareCap, granted: string[]) {
  return (holder: string) => {
    const wait = cap.acquire(holder);
    if (wait === undefined) granted.push(holder);
    else void wait.then(() => granted.push(holder));
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('FairShareCap', () => {
  it('is a plain counter while slots are free', () => {
    const cap = new FairShareCap(3);
    expect(cap.acquire('a')).toBeUndefined();
    expect(cap.acquire('a')).toBeUndefined();
    expect(cap.acquire('b')).toBeUndefined();
    expect(cap.acquire('b')).toBeInstanceOf(Promise);
    expect(cap.inUse).toBe(3);
    expect(cap.heldBy('a')).toBe(2);
  });

  it('gives a freed slot to the waiting holder that holds the fewest, not to the one first in line', async () => {
    const cap = new FairShareCap(10);
    const granted: string[] = [];
    const take = taker(cap, granted);
    // A slow subscriber filled 8 slots; two healthy ones hold one each.
    for (let i = 0; i < 8; i++) take('slow');
    take('fast-1');
    take('fast-2');
    granted.length = 0;
    // The slow one queues 20 more before the healthy ones ask again.
    for (let i = 0; i < 20; i++) take('slow');
    take('fast-1');
    take('fast-2');
    take('fast-1');
    // Three slots free up (any holder's); they go to fast-1, fast-2, fast-1.
    cap.release('slow');
    cap.release('slow');
    cap.release('fast-1');
    await flush();
    expect(granted).toEqual(['fast-1', 'fast-2', 'fast-1']);
    expect(cap.heldBy('slow')).toBe(6);
    // With no one else waiting, the slow one gets slots again.
    cap.release('fast-2');
    await flush();
    expect(granted.at(-1)).toBe('slow');
    expect(cap.inUse).toBe(10);
  });

  it('serves equals in turn and one holder in arrival order', async () => {
    const cap = new FairShareCap(1);
    const order: string[] = [];
    expect(cap.acquire('x')).toBeUndefined();
    for (const label of ['a1', 'a2', 'b1', 'b2'])
      void cap.acquire(label.slice(0, 1))?.then(() => order.push(label));
    for (const holder of ['x', 'a', 'b', 'a']) {
      cap.release(holder);
      await flush();
    }
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  it('refuses a release without a slot and a size below one', () => {
    expect(() => new FairShareCap(0)).toThrow(RangeError);
    expect(() => new FairShareCap(1).release('nobody')).toThrow(/without a slot/);
  });
});
