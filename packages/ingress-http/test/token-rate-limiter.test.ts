import { describe, expect, it } from 'vitest';
import { TokenRateLimiter } from '../src/token-rate-limiter.ts';

describe('TokenRateLimiter', () => {
  it('allows a burst, then perSecond, and says how long to wait; producers apart', () => {
    let now = 0;
    const limiter = new TokenRateLimiter({ perSecond: 2, burst: 3, now: () => now });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBe(0);
    now = 500; // one token back
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 1]);
  });

  it('asks for whole seconds even at a fraction of a request per second', () => {
    const limiter = new TokenRateLimiter({ perSecond: 0.1, burst: 1, now: () => 0 });
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 10]);
  });
});
