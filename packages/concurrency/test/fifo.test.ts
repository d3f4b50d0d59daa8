import { describe, expect, it } from 'vitest';
import { Fifo } from '../src/fifo.ts';

describe('Fifo', () => {
  it('takes in the order pushed, peeks without taking, and is empty after the last', () => {
    const fifo = new Fifo<number>();
    expect(fifo.take()).toBeUndefined();
    fifo.push(1);
    fifo.push(2);
    expect(fifo.peek()).toBe(1);
    expect(fifo.take()).toBe(1);
    fifo.push(3);
    expect(fifo.length).toBe(2);
    expect([fifo.take(), fifo.take(), fifo.take()]).toEqual([2, 3, undefined]);
    expect(fifo.length).toBe(0);
  });

  it('clear empties it', () => {
    const fifo = new Fifo<string>();
    fifo.push('a');
    fifo.clear();
    expect(fifo.peek()).toBeUndefined();
    expect(fifo.length).toBe(0);
  });

  it('a queue that never empties holds only what waits: taken items are let go of', () => {
    const fifo = new Fifo<{ n: number }>();
    fifo.push({ n: 0 });
    for (let n = 1; n <= 10_000; n++) {
      fifo.push({ n });
      expect(fifo.take()?.n).toBe(n - 1);
    }
    expect(fifo.length).toBe(1);
    expect(fifo.peek()?.n).toBe(10_000);
    // The array behind it was compacted: at most twice the compaction threshold long.
    expect(fifo.slots).toBeLessThanOrEqual(2 * 1024 + 2);
  });
});
