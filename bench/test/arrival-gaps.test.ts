import { describe, expect, it } from 'vitest';
import { arrivalGaps } from '../src/arrival-gaps.ts';

describe('arrivalGaps', () => {
  it('summarises the gaps between arrivals, in any order', () => {
    const gaps = arrivalGaps([30, 0, 10, 20, 65, 75], 10);
    expect(gaps.medianMs).toBe(10);
    expect(gaps.maxMs).toBe(35);
    // One gap of 35 ms is longer than twice the interval: 25 ms beyond its own interval.
    expect(gaps.stalledMs).toBe(25);
  });

  it('reports zeros for fewer than two arrivals', () => {
    expect(arrivalGaps([5], 10)).toEqual({ medianMs: 0, p99Ms: 0, maxMs: 0, stalledMs: 0 });
  });
});
