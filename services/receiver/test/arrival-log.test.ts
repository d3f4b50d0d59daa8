import { describe, expect, it } from 'vitest';
import { maxInWindow, perSecondHistogram } from '../src/arrival-log.ts';

describe('arrival statistics', () => {
  it('finds the busiest sliding window, half-open', () => {
    expect(maxInWindow([], 1000)).toBe(0);
    expect(maxInWindow([0, 200, 400, 600, 800, 1000], 1000)).toBe(5);
    expect(maxInWindow([0, 200, 400, 600, 800, 999], 1000)).toBe(6);
    expect(maxInWindow([1000, 0, 500, 1400, 1600], 1000)).toBe(3);
  });

  it('counts arrivals per second since the first', () => {
    expect(perSecondHistogram([5000, 5100, 6000, 8999])).toEqual([2, 1, 0, 1]);
  });
});
