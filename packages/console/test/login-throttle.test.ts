import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../src/index.ts';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('LoginThrottle', () => {
  it('allows 10 attempts a minute per address, then refuses with the seconds left', () => {
    const c = clock();
    const throttle = new LoginThrottle({ now: c.now });
    for (let i = 0; i < 10; i++) expect(throttle.take('10.0.0.1')).toEqual({ allowed: true });
    c.advance(15_000);
    expect(throttle.take('10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 45, firstRefusal: true });
    expect(throttle.take('10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 45, firstRefusal: false });
    expect(throttle.take('10.0.0.2')).toEqual({ allowed: true });
    c.advance(45_000);
    expect(throttle.take('10.0.0.1')).toEqual({ allowed: true });
  });

  it('rounds Retry-After up and never below a second', () => {
    const c = clock();
    const throttle = new LoginThrottle({ maxAttempts: 1, windowMs: 1000, now: c.now });
    throttle.take('a');
    c.advance(999.5);
    expect(throttle.take('a')).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('remembers at most maxAddresses, forgetting ended windows first, then the oldest', () => {
    const c = clock();
    const throttle = new LoginThrottle({ maxAttempts: 1, windowMs: 60_000, maxAddresses: 3, now: c.now });
    throttle.take('old');
    c.advance(61_000);
    throttle.take('a');
    throttle.take('b');
    throttle.take('c');
    expect(throttle.size).toBe(3);
    throttle.take('d');
    expect(throttle.size).toBe(3);
    // 'a' was the oldest live window: forgotten, so it may try again; 'c' still may not.
    expect(throttle.take('a')).toEqual({ allowed: true });
    expect(throttle.take('c')).toMatchObject({ allowed: false });
    for (let i = 0; i < 1000; i++) throttle.take(`flood-${i}`);
    expect(throttle.size).toBe(3);
  });
});
