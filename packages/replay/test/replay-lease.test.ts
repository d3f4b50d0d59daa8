import { describe, expect, it } from 'vitest';
import { readDeadLetter } from '../src/dead-letter.ts';
import {
  describeHolder,
  type LeaseHolder,
  leaseFromLog,
  leaseRecord,
  leaseRelease,
  liveLease,
  REPLAY_LEASE_KEY,
  REPLAY_LEASE_TTL_MS,
  supersedingLease,
} from '../src/replay-lease.ts';
import { indexReplayLog, replayLogRecord } from '../src/replay-log.ts';
import { checkReplayable } from '../src/tier-record.ts';
import { dlqRecord } from './fixtures.ts';

const NOW = Date.parse('2026-05-02T08:00:00.000Z');
const alice: LeaseHolder = {
  subscriber: 'billing',
  replayId: 'rpl_a',
  operator: 'ops-alice',
  host: 'ops-1',
  pid: 4242,
  tool: 'cli',
};
const bob: LeaseHolder = { ...alice, replayId: 'rpl_b', operator: 'ops-bob', tool: 'console' };

function entry(offset: string) {
  const c = checkReplayable(readDeadLetter(dlqRecord({ offset })), 'billing');
  if (!c.ok) throw new Error(c.problem);
  const { key, value } = replayLogRecord(
    c.replayable,
    { topic: 'hookstream.sub.billing.retry.1', partition: 0, offset },
    { replayId: 'rpl_a', nowMs: NOW, operator: 'ops' },
  );
  return { key, value };
}

describe('the replay lease', () => {
  it('is taken for the TTL and keeps the time it was first taken across refreshes', () => {
    const { key, lease } = leaseRecord(alice, NOW - 5000, NOW);
    expect(key).toBe(REPLAY_LEASE_KEY);
    expect(lease).toMatchObject({
      ...alice,
      since: '2026-05-02T07:59:55.000Z',
      expiresAt: new Date(NOW + REPLAY_LEASE_TTL_MS).toISOString(),
    });
  });

  it('is the last lease record of the log; a release or an unreadable record leaves none', () => {
    const a = leaseRecord(alice, NOW, NOW);
    const b = leaseRecord(bob, NOW, NOW + 1000);
    expect(leaseFromLog([])).toBeNull();
    expect(leaseFromLog([a, entry('1'), b, entry('2')])).toEqual(b.lease);
    expect(leaseFromLog([a, entry('1'), leaseRelease()])).toBeNull();
    expect(leaseFromLog([a, { key: REPLAY_LEASE_KEY, value: Buffer.from('{"replayId":') }])).toBeNull();
    expect(leaseFromLog([a, { key: REPLAY_LEASE_KEY, value: Buffer.from('{"replayId":"x"}') }])).toBeNull();
  });

  it('stops another run until it expires, never its own holder', () => {
    const { lease } = leaseRecord(alice, NOW, NOW);
    expect(liveLease(lease, NOW + 1000)).toEqual(lease);
    expect(liveLease(lease, NOW + 1000, 'rpl_b')).toEqual(lease);
    expect(liveLease(lease, NOW + 1000, 'rpl_a')).toBeNull();
    expect(liveLease(lease, NOW + REPLAY_LEASE_TTL_MS)).toBeNull();
    expect(liveLease(null, NOW)).toBeNull();
  });

  it.each([
    ['no log at all', [], null],
    ['only our own lease', ['a'], null],
    ['another run before ours (we fenced it)', ['b', 'a'], null],
    ['another run after ours', ['a', 'b'], 'rpl_b'],
    ['another run after ours that gave the lease back since', ['a', 'b', 'release'], 'rpl_b'],
    ['another run after ours, then ours again (it never fenced us)', ['a', 'b', 'a'], null],
    ['an unreadable lease after ours names nobody', ['a', 'junk'], null],
  ] as const)('taken over from rpl_a: %s', (_, log, expected) => {
    const records = log.map((r) =>
      r === 'a'
        ? leaseRecord(alice, NOW, NOW)
        : r === 'b'
          ? leaseRecord(bob, NOW, NOW + 1000)
          : r === 'release'
            ? leaseRelease()
            : { key: REPLAY_LEASE_KEY, value: Buffer.from('{"replayId":') },
    );
    expect(supersedingLease([entry('1'), ...records], 'rpl_a')?.replayId ?? null).toBe(expected);
  });

  it('names its holder: run, operator, host, pid, tool and times', () => {
    const { lease } = leaseRecord(bob, NOW, NOW);
    expect(describeHolder(lease)).toBe(
      'rpl_b by ops-bob on ops-1 (pid 4242, the console) since 2026-05-02T08:00:00.000Z, lease until 2026-05-02T08:01:00.000Z',
    );
    expect(describeHolder(leaseRecord(alice, NOW, NOW).lease)).toContain('hookstream dlq replay');
  });

  it('is no replay log entry: the index neither counts it nor calls it unreadable', () => {
    const index = indexReplayLog([leaseRecord(alice, NOW, NOW), entry('3'), leaseRelease()]);
    expect([...index.replayed.keys()]).toEqual(['hookstream.sub.billing.dlq:0:3']);
    expect(index.unreadable).toBe(0);
  });
});
