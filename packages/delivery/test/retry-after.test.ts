import { describe, expect, it } from 'vitest';
import { boundedPauseUntil, MAX_RETRY_AFTER_MS, parseRetryAfter } from '../src/retry-after.ts';

const now = Date.parse('2026-11-30T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['2', 2000],
    [' 0 ', 0],
    ['120', 120_000],
    ['Mon, 30 Nov 2026 12:00:05 GMT', 5000],
    ['Mon, 30 Nov 2026 11:59:00 GMT', 0],
    ['99999999', MAX_RETRY_AFTER_MS],
    ['Tue, 01 Dec 2026 12:00:00 GMT', MAX_RETRY_AFTER_MS],
    ['Fri, 31 Dec 9999 23:59:59 GMT', MAX_RETRY_AFTER_MS],
    ['9'.repeat(400), MAX_RETRY_AFTER_MS],
  ])('%j means %d ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([null, undefined, '', '-1', '1.5', 'soon', '2026-11-30T12:00:05Z'])('%j is ignored', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});

describe('boundedPauseUntil', () => {
  it.each([
    [now + 5000, now + 5000],
    [now - 5000, now - 5000],
    [Date.parse('9999-12-31T23:59:59Z'), now + MAX_RETRY_AFTER_MS],
    [Number.NaN, now],
    [Number.POSITIVE_INFINITY, now],
  ])('%d is held to %d', (until, bounded) => {
    expect(boundedPauseUntil(until, now)).toBe(bounded);
  });
});
