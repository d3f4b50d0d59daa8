import type { LedgerLine } from '@hookstream/replay';
import { expect, it, describe as suite } from 'vitest';
import { describe } from '../src/ledger-command.ts';

const origin = { topic: 'events', partition: 0, offset: '4' };
const rewind = { at: '2026-12-04T10:00:00.000Z', by: 'alice' };
const line = (ledger: LedgerLine['ledger']): LedgerLine => ({ subscriber: 'billing', origin, ledger });
const NOW = Date.parse('2026-12-04T09:00:00.000Z');

suite('hookstream ledger: the detail of a step a rewind caused (no Kafka needed)', () => {
  it.each<[string, LedgerLine['ledger'], string]>([
    [
      'delivered again',
      { state: 'delivered', at: '2026-12-04T10:00:01.000Z', attempt: 1, status: 204, rewind },
      'at 2026-12-04T10:00:01.000Z, attempt 1, status 204 (sent again by a rewind by alice at 2026-12-04T10:00:00.000Z)',
    ],
    [
      'delivered, no rewind',
      { state: 'delivered', at: '2026-12-04T10:00:01.000Z', attempt: 1, status: 204 },
      'at 2026-12-04T10:00:01.000Z, attempt 1, status 204',
    ],
    [
      'retrying after a rewind',
      {
        state: 'retrying',
        tier: 1,
        dueAt: '2026-12-04T10:00:11.000Z',
        attempt: 1,
        replayed: false,
        rewind,
      },
      'in retry tier 1, due 2026-12-04T10:00:11.000Z, after attempt 1 (sent again by a rewind by alice at 2026-12-04T10:00:00.000Z)',
    ],
    [
      'dead-lettered after a rewind',
      {
        state: 'dead-lettered',
        at: '2026-12-04T10:00:02.000Z',
        reason: 'terminal',
        attempt: 1,
        status: 422,
        rewind,
      },
      'reason terminal, after attempt 1, status 422, at 2026-12-04T10:00:02.000Z (sent again by a rewind by alice at 2026-12-04T10:00:00.000Z)',
    ],
    [
      'filtered after a rewind',
      { state: 'filtered', at: '2026-12-04T10:00:01.000Z', filter: 'filter.exact.type', rewind },
      "filtered out at 2026-12-04T10:00:01.000Z by its filter's filter.exact.type (read again after a rewind by alice at 2026-12-04T10:00:00.000Z)",
    ],
  ])('%s', (_, ledger, text) => {
    expect(describe(line(ledger), NOW)).toBe(text);
  });
});
