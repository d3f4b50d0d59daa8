import { describe, expect, it } from 'vitest';
import { auditChainBreaks } from '../src/audit-chain.ts';
import { auditRecordOf } from '../src/audit-records.ts';
import { pausedRecord, resumedRecord } from '../src/state-changes.ts';
import { NOW, record } from './fixtures.ts';

const alice = { kind: 'user', user: 'alice' } as const;
const active = record('billing');
const paused = pausedRecord(active, { reason: 'rewind to earliest', by: 'alice', now: NOW });
const resumed = resumedRecord(paused, NOW);

function change(
  action: Parameters<typeof auditRecordOf>[0]['action'],
  before: typeof active | null,
  after: typeof active | null,
) {
  return auditRecordOf({ actor: alice, action, subscriber: 'billing', before, after, now: NOW });
}

describe('auditChainBreaks', () => {
  it('holds across a rewind taken on the paused record, and outside replays', () => {
    const trail = [
      change('subscriber.created', null, active),
      change('subscriber.paused', active, paused),
      change('subscriber.rewound', paused, paused),
      change('dead_letters.replayed', null, null),
      change('subscriber.resumed', paused, resumed),
    ];
    expect(auditChainBreaks(trail)).toEqual([]);
  });

  it('names the record whose before is not the previous after (a rewind that recorded the record from before its pause)', () => {
    const stale = change('subscriber.rewound', active, active);
    const trail = [
      change('subscriber.created', null, active),
      change('subscriber.paused', active, paused),
      stale,
      change('subscriber.resumed', paused, resumed),
    ];
    const breaks = auditChainBreaks(trail);
    expect(breaks.map((b) => [b.id, b.action])).toEqual([
      [stale.id, 'subscriber.rewound'],
      [trail[3]?.id, 'subscriber.resumed'],
    ]);
    expect(breaks[0]?.expected).toBe(trail[1]?.after);
  });
});
