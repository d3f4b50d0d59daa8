import { AttemptLogEntry } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { readDeadLetter } from '../src/dead-letter.ts';
import { replayAttemptEntry } from '../src/replay-attempt.ts';
import { checkReplayable } from '../src/tier-record.ts';
import { dlqRecord } from './fixtures.ts';

describe('replayAttemptEntry', () => {
  it('is a valid attempt log step: scheduled in tier 1 now, new budget, from the DLQ record', () => {
    const c = checkReplayable(readDeadLetter(dlqRecord()), 'billing');
    if (!c.ok) throw new Error(c.problem);
    const entry = replayAttemptEntry(c.replayable, Date.parse('2026-05-02T08:00:00.000Z'), 'ops-alice');
    expect(AttemptLogEntry.parse(entry)).toEqual({
      eventId: 'evt_1',
      subscriber: 'billing',
      step: 'retry-scheduled',
      attempt: 0,
      at: '2026-05-02T08:00:00.000Z',
      outcome: 'replayed',
      tier: 1,
      dueAt: '2026-05-02T08:00:00.000Z',
      origin: { topic: 'events', partition: 4, offset: '1234' },
      source: { topic: 'hookstream.sub.billing.dlq', partition: 0, offset: '7' },
      operator: 'ops-alice',
    });
  });
});
