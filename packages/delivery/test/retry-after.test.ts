import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../src/retry-after.ts';

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
  ])('%j means %d ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([null, undefined, '', '-1', '1.5', 'soon', '2026-11-30T12:00:05Z'])('%j is ignored', (value) => {
    expect(parseRetryAfter(value, now)).toBeNull();
  });
});
