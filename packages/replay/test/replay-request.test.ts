import { describe, expect, it } from 'vitest';
import { raceStartMs } from '../src/replay-request.ts';

const NOW = Date.parse('2026-12-03T06:30:00.000Z');

describe('raceStartMs: since when an --again run counts others as raced', () => {
  it('is when the operator asked, not when the call began (a slow start resends nothing)', () => {
    expect(raceStartMs({ askedAtMs: NOW - 4_000 }, NOW)).toBe(NOW - 4_000);
  });

  it('is the call’s start when nobody said when it was asked', () => {
    expect(raceStartMs({}, NOW)).toBe(NOW);
    expect(raceStartMs({ askedAtMs: undefined }, NOW)).toBe(NOW);
  });

  it('is never later than now, nor a non-number', () => {
    expect(raceStartMs({ askedAtMs: NOW + 60_000 }, NOW)).toBe(NOW);
    expect(raceStartMs({ askedAtMs: Number.NaN }, NOW)).toBe(NOW);
  });
});
