import { CE_HEADER, HS_HEADER } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { readDeadLetter } from '../src/dead-letter.ts';
import { dlqRecord } from './fixtures.ts';

describe('readDeadLetter', () => {
  it('reads the evidence, event id, type, location and dead-letter time', () => {
    const l = readDeadLetter(dlqRecord());
    expect(l.problem).toBeNull();
    expect(l.evidence).toMatchObject({
      subscriber: 'billing',
      reason: 'exhausted',
      attempts: 3,
      status: 503,
      origin: { topic: 'events', partition: 4, offset: '1234' },
      source: { topic: 'hookstream.sub.billing.retry.2', partition: 1, offset: '17' },
    });
    expect(l.eventId).toBe('evt_1');
    expect(l.eventType).toBe('shipment.updated');
    expect(l.location).toEqual({ topic: 'hookstream.sub.billing.dlq', partition: 0, offset: '7' });
    expect(l.deadLetteredAtMs).toBe(Date.parse('2026-05-01T10:00:11.500Z'));
  });

  it("names the event's tenant from the ce_tenant its DLQ copy keeps, null without one", () => {
    expect(readDeadLetter(dlqRecord()).tenant).toBeNull();
    expect(readDeadLetter(dlqRecord({ headers: { [CE_HEADER.tenant]: 'acme' } })).tenant).toBe('acme');
  });

  it('keeps a record whose evidence does not parse, says why, and falls back to ce_id and the record time', () => {
    const l = readDeadLetter(
      dlqRecord({ headers: { [HS_HEADER.deadLetterReason]: 'bored', [HS_HEADER.eventId]: undefined } }),
    );
    expect(l.evidence).toBeNull();
    expect(l.problem).toMatch(/reason/);
    expect(l.eventId).toBe('evt_1');
    expect(l.deadLetteredAtMs).toBe(Date.parse('2026-05-01T10:00:11.600Z'));
  });

  it('has no event id for a poison record without ce_id or hookstream_event_id', () => {
    const l = readDeadLetter(
      dlqRecord({
        headers: { ce_id: undefined, [HS_HEADER.eventId]: undefined, [HS_HEADER.deadLetterReason]: 'poison' },
      }),
    );
    expect(l.evidence?.reason).toBe('poison');
    expect(l.eventId).toBeNull();
  });
});
