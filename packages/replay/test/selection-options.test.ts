import { describe, expect, it } from 'vitest';
import { parseInstant, parseRate, parseSelectionFlags } from '../src/selection-options.ts';

const NOW = Date.parse('2026-05-02T00:00:00.000Z');

describe('parseSelectionFlags', () => {
  it('turns every flag into the selection', () => {
    expect(
      parseSelectionFlags(
        {
          'event-id': ['evt_1', 'evt_2'],
          since: '2h',
          until: '2026-05-01T23:30:00+00:00',
          reason: ['terminal'],
          status: ['5xx', '404', 'none'],
          limit: '10',
        },
        NOW,
      ),
    ).toEqual({
      eventIds: ['evt_1', 'evt_2'],
      sinceMs: NOW - 2 * 3_600_000,
      untilMs: Date.parse('2026-05-01T23:30:00Z'),
      reasons: ['terminal'],
      statuses: ['5xx', '404', 'none'],
      limit: 10,
    });
  });

  it('selects everything without flags', () => {
    expect(parseSelectionFlags({}, NOW)).toEqual({ eventIds: [], reasons: [], statuses: [] });
  });

  it.each([
    [{ 'event-id': ['has space'] }, '--event-id'],
    [{ reason: ['timeout'] }, '--reason'],
    [{ status: ['600'] }, '--status'],
    [{ status: ['5XX'] }, '--status'],
    [{ limit: '0' }, '--limit'],
    [{ limit: '-3' }, '--limit'],
    [{ limit: '1.5' }, '--limit'],
    [{ since: 'yesterday' }, '--since'],
    [{ until: '2026-05-01' }, '--until'],
    [{ since: '1h', until: '2h' }, '--since'],
  ])('refuses %j with BAD_OPTION naming %s', (flags, option) => {
    expect(() => parseSelectionFlags(flags, NOW)).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', canRetry: false }),
    );
    expect(() => parseSelectionFlags(flags, NOW)).toThrow(option);
  });
});

describe('parseInstant', () => {
  it.each([
    ['500ms', NOW - 500],
    ['30s', NOW - 30_000],
    ['15m', NOW - 900_000],
    ['7d', NOW - 7 * 86_400_000],
    ['2026-05-01T10:00:00.000Z', Date.parse('2026-05-01T10:00:00.000Z')],
    ['2026-05-01T12:00:00+02:00', Date.parse('2026-05-01T10:00:00.000Z')],
  ])('reads %s', (text, expected) => {
    expect(parseInstant('since', text, NOW)).toBe(expected);
  });

  it('refuses a date-time without an offset (its zone would be a guess)', () => {
    expect(() => parseInstant('since', '2026-05-01T10:00:00', NOW)).toThrow('--since');
  });
});

describe('parseRate', () => {
  it.each([
    ['50', 50],
    ['50/s', 50],
    ['0.5', 0.5],
  ])('reads %s', (text, rate) => {
    expect(parseRate(text)).toBe(rate);
  });

  it.each(['0', 'fast', '-1', '5/m', ''])('refuses %j naming --rate', (text) => {
    expect(() => parseRate(text)).toThrow('--rate');
  });
});
