import { HS_HEADER } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { readDeadLetter } from '../src/dead-letter.ts';
import { DlqSelection, matchesStatus, selectDeadLetters } from '../src/selection.ts';
import { dlqRecord } from './fixtures.ts';

const h = HS_HEADER;
const letters = [
  // offset, event, reason, status, dead-lettered at
  ['0', 'evt_a', 'terminal', '404', '2026-05-01T10:00:00.000Z'],
  ['1', 'evt_b', 'exhausted', '503', '2026-05-01T11:00:00.000Z'],
  ['2', 'evt_c', 'expired', undefined, '2026-05-01T12:00:00.000Z'],
  ['3', 'evt_d', 'terminal', '410', '2026-05-01T09:00:00.000Z'],
  ['4', 'evt_e', 'exhausted', '500', '2026-05-01T11:00:00.000Z'],
].map(([offset, id, reason, status, at]) =>
  readDeadLetter(
    dlqRecord({
      offset,
      headers: {
        [h.eventId]: id,
        ce_id: id,
        [h.deadLetterReason]: reason,
        [h.status]: status,
        [h.deadLetteredAt]: at,
      },
    }),
  ),
);

const ids = (sel: Partial<DlqSelection>) =>
  selectDeadLetters(letters, DlqSelection.parse(sel)).map((l) => l.eventId);

describe('selectDeadLetters', () => {
  it('selects everything oldest first when nothing is given (same instant: DLQ offset order)', () => {
    expect(ids({})).toEqual(['evt_d', 'evt_a', 'evt_b', 'evt_e', 'evt_c']);
  });

  it('selects by event id (any of several)', () => {
    expect(ids({ eventIds: ['evt_c', 'evt_a', 'evt_zzz'] })).toEqual(['evt_a', 'evt_c']);
  });

  it('selects by dead-letter time: since inclusive, until exclusive', () => {
    expect(
      ids({
        sinceMs: Date.parse('2026-05-01T10:00:00.000Z'),
        untilMs: Date.parse('2026-05-01T12:00:00.000Z'),
      }),
    ).toEqual(['evt_a', 'evt_b', 'evt_e']);
  });

  it('selects by reason and by status, exact, class or none', () => {
    expect(ids({ reasons: ['terminal'] })).toEqual(['evt_d', 'evt_a']);
    expect(ids({ statuses: ['5xx'] })).toEqual(['evt_b', 'evt_e']);
    expect(ids({ statuses: ['404', 'none'] })).toEqual(['evt_a', 'evt_c']);
  });

  it('combines criteria and cuts to the limit after filtering', () => {
    expect(ids({ reasons: ['exhausted', 'terminal'], statuses: ['4xx', '503'], limit: 2 })).toEqual([
      'evt_d',
      'evt_a',
    ]);
    expect(ids({ limit: 1 })).toEqual(['evt_d']);
  });

  it('never selects records without evidence when reason or status is asked for', () => {
    const broken = readDeadLetter(dlqRecord({ offset: '9', headers: { [h.deadLetterReason]: 'bad' } }));
    expect(selectDeadLetters([broken], DlqSelection.parse({ reasons: ['terminal'] }))).toEqual([]);
    expect(selectDeadLetters([broken], DlqSelection.parse({ statuses: ['none'] }))).toEqual([]);
    expect(selectDeadLetters([broken], DlqSelection.parse({}))).toEqual([broken]);
  });
});

describe('matchesStatus', () => {
  it.each([
    [404, '404', true],
    [404, '4xx', true],
    [404, '5xx', false],
    [404, 'none', false],
    [undefined, 'none', true],
    [undefined, '5xx', false],
    [503, '503', true],
    [503, '500', false],
  ] as const)('%s against %s is %s', (status, match, expected) => {
    expect(matchesStatus(status, match)).toBe(expected);
  });
});
