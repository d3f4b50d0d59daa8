import { CE_HEADER } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { readDeadLetter } from '../src/dead-letter.ts';
import { indexReplayLog, planReplay, ReplayLogEntry, replayLogRecord } from '../src/replay-log.ts';
import { buildTierRecord, checkReplayable, type Replayable } from '../src/tier-record.ts';
import { dlqRecord } from './fixtures.ts';

const NOW = Date.parse('2026-05-02T08:00:00.000Z');
const check = (l: ReturnType<typeof readDeadLetter>) => checkReplayable(l, 'billing');

function replayable(offset: string): Replayable {
  const c = check(readDeadLetter(dlqRecord({ offset })));
  if (!c.ok) throw new Error(c.problem);
  return c.replayable;
}

function logged(offset: string, replayId = 'rpl_1') {
  const { key, value } = replayLogRecord(
    replayable(offset),
    { topic: 'hookstream.sub.billing.retry.1', partition: 2, offset: '40' },
    { replayId, nowMs: NOW, operator: 'ops' },
  );
  return { key, value };
}

describe('replayLogRecord', () => {
  it('keys by DLQ location and records where the copy went, when, and by which run', () => {
    const { key, value, entry } = replayLogRecord(
      replayable('7'),
      { topic: 'hookstream.sub.billing.retry.1', partition: 2, offset: '40' },
      { replayId: 'rpl_1', nowMs: NOW, operator: 'ops-alice' },
    );
    expect(key).toBe('hookstream.sub.billing.dlq:0:7');
    expect(ReplayLogEntry.parse(JSON.parse(value.toString()))).toEqual(entry);
    expect(entry).toEqual({
      dlq: { topic: 'hookstream.sub.billing.dlq', partition: 0, offset: '7' },
      eventId: 'evt_1',
      subscriber: 'billing',
      replayId: 'rpl_1',
      operator: 'ops-alice',
      replayedAt: '2026-05-02T08:00:00.000Z',
      tier: { topic: 'hookstream.sub.billing.retry.1', partition: 2, offset: '40' },
      replays: 1,
    });
  });
});

describe("a tenant's dead letter replayed", () => {
  it('keeps its ce_tenant on the tier record and names the tenant in the replay log entry', () => {
    const c = check(readDeadLetter(dlqRecord({ offset: '8', headers: { [CE_HEADER.tenant]: 'acme' } })));
    if (!c.ok) throw new Error(c.problem);
    const { value, entry } = replayLogRecord(
      c.replayable,
      { topic: 'hookstream.sub.billing.retry.1', partition: 0, offset: '1' },
      { replayId: 'rpl_1', nowMs: NOW, operator: 'ops' },
    );
    expect(entry.tenant).toBe('acme');
    expect(ReplayLogEntry.parse(JSON.parse(value.toString())).tenant).toBe('acme');
    const tier = buildTierRecord(c.replayable, { replayId: 'rpl_1', nowMs: NOW, operator: 'ops' });
    expect(tier.headers[CE_HEADER.tenant]).toBe('acme');
    // Without one, the entry is as before.
    expect(
      'tenant' in
        replayLogRecord(replayable('9'), entry.tier, { replayId: 'r', nowMs: NOW, operator: 'ops' }).entry,
    ).toBe(false);
  });
});

describe('indexReplayLog', () => {
  it('keeps the newest entry per key, forgets tombstoned keys, counts what it cannot read', () => {
    const index = indexReplayLog([
      logged('1', 'first'),
      logged('2'),
      logged('1', 'second'),
      { key: 'hookstream.sub.billing.dlq:0:2', value: null },
      { key: 'junk', value: Buffer.from('not json') },
      { key: null, value: Buffer.from('{}') },
      // An entry filed under the wrong key is not trusted.
      { key: 'hookstream.sub.billing.dlq:0:99', value: logged('3').value },
    ]);
    expect([...index.replayed.keys()]).toEqual(['hookstream.sub.billing.dlq:0:1']);
    expect(index.replayed.get('hookstream.sub.billing.dlq:0:1')?.replayId).toBe('second');
    expect(index.unreadable).toBe(3);
  });
});

describe('planReplay', () => {
  const selected = ['1', '2', '3'].map((offset) => readDeadLetter(dlqRecord({ offset })));
  const broken = readDeadLetter(dlqRecord({ offset: '4', headers: { hookstream_subscriber: 'crm' } }));
  const index = indexReplayLog([logged('2')]);

  it('sends what was never replayed and skips what was', () => {
    const plan = planReplay([...selected, broken], check, index, { again: false });
    expect(plan.send.map((r) => r.letter.location.offset)).toEqual(['1', '3']);
    expect(plan.alreadyReplayed.map((s) => s.letter.location.offset)).toEqual(['2']);
    expect(plan.alreadyReplayed[0]?.entry.replayId).toBe('rpl_1');
    expect(plan.unreplayable.map((u) => [u.letter.location.offset, u.problem])).toEqual([
      ['4', 'dead-lettered for subscriber crm, not billing'],
    ]);
  });

  it('sends everything replayable again with --again', () => {
    const plan = planReplay([...selected, broken], check, index, { again: true });
    expect(plan.send.map((r) => r.letter.location.offset)).toEqual(['1', '2', '3']);
    expect(plan.alreadyReplayed).toEqual([]);
    expect(plan.unreplayable).toHaveLength(1);
  });

  it('with --again, still skips what a racing run replayed after this one began', () => {
    const plan = planReplay(selected, check, index, { again: true, startedMs: NOW });
    expect(plan.send.map((r) => r.letter.location.offset)).toEqual(['1', '3']);
    expect(plan.alreadyReplayed.map((s) => s.letter.location.offset)).toEqual(['2']);
    const before = planReplay(selected, check, index, { again: true, startedMs: NOW + 1 });
    expect(before.send.map((r) => r.letter.location.offset)).toEqual(['1', '2', '3']);
  });

  it('sends nothing from an empty selection', () => {
    expect(planReplay([], check, index, { again: false })).toEqual({
      send: [],
      alreadyReplayed: [],
      unreplayable: [],
    });
  });
});
