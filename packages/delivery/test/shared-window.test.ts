import { describe, expect, it } from 'vitest';
import { SHARED_WINDOW_MARGIN_MS, sharedWindowRate, sharedWindowSettings } from '../src/shared-window.ts';

describe('sharedWindowSettings', () => {
  it('allows the rate plus the burst in a window a little longer than a second', () => {
    expect(sharedWindowSettings({ perSecond: 5, burst: 0 })).toEqual({
      limit: 5,
      windowMs: 1000 + SHARED_WINDOW_MARGIN_MS,
    });
    expect(sharedWindowSettings({ perSecond: 5, burst: 3 }).limit).toBe(8);
  });

  it('never allows less than one request per window', () => {
    expect(sharedWindowSettings({ perSecond: 0.5, burst: 0 }).limit).toBe(1);
  });

  it('keeps the margin positive and the long-run rate within 95 % of the limit at 5/s', () => {
    expect(SHARED_WINDOW_MARGIN_MS).toBeGreaterThan(0);
    const rate = sharedWindowRate(sharedWindowSettings({ perSecond: 5, burst: 0 }));
    expect(rate).toBeLessThan(5);
    expect(rate).toBeGreaterThanOrEqual(5 * 0.96);
  });
});
