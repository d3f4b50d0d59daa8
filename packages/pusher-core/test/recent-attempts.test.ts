import { describe, expect, it } from 'vitest';
import { RecentAttempts } from '../src/recent-attempts.ts';

describe('RecentAttempts', () => {
  it('counts attempts and deliveries within the window and forgets them after it', () => {
    let now = 1_000_000;
    const recent = new RecentAttempts(60_000, () => now);
    recent.record(true);
    recent.record(false);
    now += 25_000;
    recent.record(true);
    expect(recent.counts()).toEqual({ windowMs: 60_000, attempts: 3, delivered: 2 });
    now += 40_000; // the first two are now over a minute old
    expect(recent.counts()).toEqual({ windowMs: 60_000, attempts: 1, delivered: 1 });
    now += 10 * 60_000; // a long quiet spell clears everything
    expect(recent.counts()).toEqual({ windowMs: 60_000, attempts: 0, delivered: 0 });
    recent.record(false);
    expect(recent.counts()).toMatchObject({ attempts: 1, delivered: 0 });
  });
});
