import { HS_HEADER } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { readDeadLetter } from '../src/dead-letter.ts';
import { buildTierRecord, checkReplayable, type Replayable, replayTopic } from '../src/tier-record.ts';
import { dlqRecord, ORIGINAL_HEADERS } from './fixtures.ts';

const h = HS_HEADER;

/** A gap's dead letter as the pusher writes it: no value, no event id, the range. */
function lostRecord() {
  return dlqRecord({
    key: 'lost:events:0:5',
    value: null,
    headers: {
      ...Object.fromEntries(Object.keys(ORIGINAL_HEADERS).map((k) => [k, undefined])),
      [h.eventId]: undefined,
      [h.firstAttemptAt]: undefined,
      [h.lastAttemptAt]: undefined,
      [h.outcomeClass]: undefined,
      [h.outcome]: undefined,
      [h.status]: undefined,
      [h.excerpt]: undefined,
      [h.sourceTopic]: undefined,
      [h.sourcePartition]: undefined,
      [h.sourceOffset]: undefined,
      [h.attempts]: '0',
      [h.deadLetterReason]: 'lost',
      [h.originPartition]: '0',
      [h.originOffset]: '5',
      [h.lostFrom]: '5',
      [h.lostTo]: '19',
      [h.lostCount]: '15',
    },
  });
}
const NOW = Date.parse('2026-05-02T08:00:00.000Z');

function replayable(record = dlqRecord()): Replayable {
  const checked = checkReplayable(readDeadLetter(record), 'billing');
  if (!checked.ok) throw new Error(checked.problem);
  return checked.replayable;
}

describe('buildTierRecord', () => {
  it('keeps key, value bytes and original headers, and writes exactly the replay retry state', () => {
    const record = dlqRecord();
    const tier = buildTierRecord(replayable(record), {
      replayId: 'rpl_1',
      nowMs: NOW,
      operator: 'ops-alice',
    });
    expect(tier.key).toBe('shp_1');
    expect(tier.value.equals(record.value ?? Buffer.alloc(0))).toBe(true);
    expect(tier.headers).toEqual({
      ...ORIGINAL_HEADERS,
      [h.eventId]: 'evt_1',
      [h.subscriber]: 'billing',
      [h.attempts]: '0',
      [h.dueAt]: '2026-05-02T08:00:00.000Z',
      [h.originTopic]: 'events',
      [h.originPartition]: '4',
      [h.originOffset]: '1234',
      [h.sourceTopic]: 'hookstream.sub.billing.dlq',
      [h.sourcePartition]: '0',
      [h.sourceOffset]: '7',
      [h.replayOf]: 'hookstream.sub.billing.dlq:0:7',
      [h.replayId]: 'rpl_1',
      [h.replayedBy]: 'ops-alice',
      [h.replays]: '1',
    });
  });

  it('drops the DLQ evidence (reason, outcome, excerpt, attempt times) so the new budget starts clean', () => {
    const tier = buildTierRecord(replayable(), { replayId: 'r', nowMs: NOW, operator: 'ops' });
    for (const gone of [
      h.deadLetterReason,
      h.deadLetteredAt,
      h.outcome,
      h.excerpt,
      h.status,
      h.firstAttemptAt,
    ])
      expect(tier.headers[gone]).toBeUndefined();
  });

  it('counts replays on from the DLQ record of an earlier replay', () => {
    const tier = buildTierRecord(
      replayable(dlqRecord({ headers: { [h.replays]: '2', [h.replayOf]: 'x:0:1' } })),
      {
        replayId: 'r',
        nowMs: NOW,
        operator: 'ops',
      },
    );
    expect(tier.headers[h.replays]).toBe('3');
    expect(tier.headers[h.replayOf]).toBe('hookstream.sub.billing.dlq:0:7');
  });

  it("puts the replay span's traceparent in place of the original when given", () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
    const tier = buildTierRecord(replayable(), { replayId: 'r', nowMs: NOW, operator: 'ops', traceparent });
    expect(tier.headers.traceparent).toBe(traceparent);
  });

  it('keys a keyless record by its event id', () => {
    expect(
      buildTierRecord(replayable(dlqRecord({ key: null })), { replayId: 'r', nowMs: NOW, operator: 'ops' })
        .key,
    ).toBe('evt_1');
  });

  it('goes to retry tier 1 of the subscriber', () => {
    expect(replayTopic('billing')).toBe('hookstream.sub.billing.retry.1');
  });
});

describe('checkReplayable', () => {
  it.each([
    ['unreadable evidence', dlqRecord({ headers: { [h.policyVersion]: undefined } }), /policyVersion/],
    ['another subscriber', dlqRecord({ headers: { [h.subscriber]: 'crm' } }), /subscriber crm/],
    [
      'no event id',
      dlqRecord({ headers: { [h.eventId]: undefined, [h.deadLetterReason]: 'poison' } }),
      /no event id/,
    ],
    ['no value', dlqRecord({ value: null }), /no value/],
    [
      'a lost range (no event: retention deleted it), saying why',
      lostRecord(),
      /a lost range \(15 records of events:0, offsets 5\.\.19\): retention deleted them/,
    ],
  ])('refuses %s', (_, record, problem) => {
    const checked = checkReplayable(readDeadLetter(record), 'billing');
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.problem).toMatch(problem);
  });
});
