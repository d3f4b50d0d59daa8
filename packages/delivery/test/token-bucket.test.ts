import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../src/token-bucket.ts';

describe('TokenBucket', () => {
  it('spaces requests by the rate when the capacity is one', () => {
    const b = new TokenBucket(5, 1, 0);
    expect([b.reserve(0), b.reserve(0), b.reserve(0)]).toEqual([0, 200, 400]);
  });

  it('lets a full bucket go at once, then refills at the rate', () => {
    const b = new TokenBucket(10, 3, 0);
    expect([b.reserve(0), b.reserve(0), b.reserve(0), b.reserve(0)]).toEqual([0, 0, 0, 100]);
    expect(b.reserve(1000)).toBe(0);
  });

  it('never holds more than its capacity after a quiet spell', () => {
    const b = new TokenBucket(10, 2, 0);
    b.reserve(0);
    expect([b.reserve(60_000), b.reserve(60_000), b.reserve(60_000)]).toEqual([0, 0, 100]);
  });

  it('never exceeds capacity + rate in any second, whatever the arrival pattern (simulation)', () => {
    const rate = 7;
    const capacity = 3;
    const b = new TokenBucket(rate, capacity, 0);
    const starts: number[] = [];
    let seed = 7;
    let t = 0;
    for (let i = 0; i < 500; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      t += (seed / 2 ** 31) * 250;
      starts.push(t + b.reserve(t));
    }
    starts.sort((x, y) => x - y);
    for (let i = 0; i < starts.length; i++) {
      const inWindow = starts.filter((s) => s >= (starts[i] ?? 0) && s < (starts[i] ?? 0) + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(capacity + rate);
    }
  });

  it('refuses a non-positive rate or capacity', () => {
    expect(() => new TokenBucket(0, 1, 0)).toThrow(RangeError);
    expect(() => new TokenBucket(1, 0, 0)).toThrow(RangeError);
  });
});
