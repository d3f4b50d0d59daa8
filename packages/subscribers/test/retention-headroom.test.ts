import { describe, expect, it } from 'vitest';
import {
  formatHeadroom,
  type Headroom,
  HeadroomCrossings,
  headroomSeconds,
  leastHeadroom,
  type PartitionFigures,
  retentionHeadroom,
  retentionNoticeId,
  type TopicRetention,
  topicRetention,
} from '../src/retention-headroom.ts';

const NOW = Date.parse('2026-12-03T12:00:00Z');
const MIN = 60_000;

const figures = (f: Partial<PartitionFigures>): PartitionFigures => ({
  committed: 100,
  end: 100,
  recordTimestampMs: null,
  bytesPerRecord: null,
  recordsLastHour: null,
  ...f,
});

describe('topicRetention', () => {
  it.each<[string, Record<string, string>, TopicRetention]>([
    [
      'both set',
      { 'retention.ms': '600000', 'retention.bytes': '1048576' },
      { retentionMs: 600_000, retentionBytes: 1_048_576 },
    ],
    [
      '-1 is no limit',
      { 'retention.ms': '-1', 'retention.bytes': '-1' },
      { retentionMs: null, retentionBytes: null },
    ],
    ['missing is no limit', {}, { retentionMs: null, retentionBytes: null }],
    [
      'garbage is no limit',
      { 'retention.ms': 'soon', 'retention.bytes': '1e400' },
      { retentionMs: null, retentionBytes: null },
    ],
    [
      'compact only deletes nothing by age',
      { 'cleanup.policy': 'compact', 'retention.ms': '600000' },
      { retentionMs: null, retentionBytes: null },
    ],
    [
      'compact,delete deletes by age',
      { 'cleanup.policy': 'compact,delete', 'retention.ms': '600000' },
      { retentionMs: 600_000, retentionBytes: null },
    ],
  ])('%s', (_, config, expected) => {
    expect(topicRetention(config)).toEqual(expected);
  });
});

describe('retentionHeadroom', () => {
  it.each<[string, TopicRetention, Partial<PartitionFigures>, Headroom]>([
    [
      'retention.ms: the record at the ledger plus retention, minus now',
      { retentionMs: 10 * MIN, retentionBytes: null },
      { committed: 5, end: 9, recordTimestampMs: NOW - 4 * MIN },
      { kind: 'bounded', seconds: 360, basis: 'time' },
    ],
    [
      'retention.ms: past the boundary is 0, not negative',
      { retentionMs: 10 * MIN, retentionBytes: null },
      { committed: 5, end: 9, recordTimestampMs: NOW - 11 * MIN },
      { kind: 'bounded', seconds: 0, basis: 'time' },
    ],
    [
      'nothing owed: the next record has a whole retention',
      { retentionMs: 10 * MIN, retentionBytes: null },
      { committed: 9, end: 9 },
      { kind: 'bounded', seconds: 600, basis: 'time' },
    ],
    [
      'neither limit: unbounded',
      { retentionMs: null, retentionBytes: null },
      { committed: 5, end: 9, recordTimestampMs: NOW - 4 * MIN },
      { kind: 'unbounded' },
    ],
    [
      'retention.bytes: the room left at the last hour rate',
      // 1000 records of 100 B owed = 100 kB of 1 MB; 3600 records an hour = 100 B/s: 9000 s.
      { retentionMs: null, retentionBytes: 1_000_000 },
      { committed: 0, end: 1000, recordTimestampMs: NOW, bytesPerRecord: 100, recordsLastHour: 3600 },
      { kind: 'bounded', seconds: 9000, basis: 'bytes' },
    ],
    [
      'retention.bytes without ingest: size never reaches it',
      { retentionMs: null, retentionBytes: 1_000_000 },
      { committed: 0, end: 1000, recordTimestampMs: NOW, bytesPerRecord: 100, recordsLastHour: 0 },
      { kind: 'unbounded' },
    ],
    [
      'retention.bytes already exceeded by what is owed: 0',
      { retentionMs: null, retentionBytes: 50_000 },
      { committed: 0, end: 1000, recordTimestampMs: NOW, bytesPerRecord: 100, recordsLastHour: 0 },
      { kind: 'bounded', seconds: 0, basis: 'bytes' },
    ],
    [
      'retention.bytes without a size read: only time counts',
      { retentionMs: 10 * MIN, retentionBytes: 1_000 },
      { committed: 0, end: 1000, recordTimestampMs: NOW, bytesPerRecord: null, recordsLastHour: 3600 },
      { kind: 'bounded', seconds: 600, basis: 'time' },
    ],
    [
      'both: the one that comes first (bytes)',
      { retentionMs: 7 * 24 * 60 * MIN, retentionBytes: 1_000_000 },
      { committed: 0, end: 1000, recordTimestampMs: NOW - MIN, bytesPerRecord: 100, recordsLastHour: 3600 },
      { kind: 'bounded', seconds: 9000, basis: 'bytes' },
    ],
    [
      'both: the one that comes first (time)',
      { retentionMs: 10 * MIN, retentionBytes: 1_000_000 },
      { committed: 0, end: 1000, recordTimestampMs: NOW - MIN, bytesPerRecord: 100, recordsLastHour: 3600 },
      { kind: 'bounded', seconds: 540, basis: 'time' },
    ],
  ])('%s', (_, retention, f, expected) => {
    expect(retentionHeadroom(retention, figures(f), NOW)).toEqual(expected);
  });
});

describe('leastHeadroom, headroomSeconds and formatHeadroom', () => {
  const time = (seconds: number): Headroom => ({ kind: 'bounded', seconds, basis: 'time' });
  it.each<[string, (Headroom | null)[], number | 'unbounded' | null, string]>([
    ['none measured', [null, null], null, '-'],
    ['unbounded only', [{ kind: 'unbounded' }], 'unbounded', 'unbounded'],
    ['the least bounded wins over unbounded', [{ kind: 'unbounded' }, time(7300), time(41)], 41, '41s'],
    ['hours and minutes', [time(3 * 3600 + 12 * 60 + 5)], 11525, '3h12m'],
    ['days', [time(2 * 86_400 + 3600)], 176_400, '2d1h'],
    ['bytes says so', [{ kind: 'bounded', seconds: 125, basis: 'bytes' }], 125, '2m5s (bytes, 1h rate)'],
  ])('%s', (_, all, seconds, text) => {
    const least = leastHeadroom(all);
    expect(headroomSeconds(least)).toEqual(seconds);
    expect(formatHeadroom(least)).toBe(text);
  });
});

describe('HeadroomCrossings', () => {
  const place = { subscriber: 'billing', topic: 'events', partition: 0 };

  it('is due once per crossing, again after a recovery, and names it by the ledger offset', () => {
    const crossings = new HeadroomCrossings();
    const looks: [number, boolean, number | null][] = [
      [5, false, null], // above the threshold
      [5, true, 5], // crossed: a notice
      [5, true, null], // still below: none
      [7, true, null], // the ledger moved, still below: the same crossing
      [9, false, null], // recovered
      [12, true, 12], // crossed again: a notice about the record it concerns now
    ];
    for (const [offset, below, due] of looks) expect(crossings.look(place, offset, below)).toBe(due);
    expect(retentionNoticeId(place, 12)).toBe('subscriber.retention_at_risk:billing:events:0:12');
  });

  it('counts a crossing whose notice was not sent again at the next look, under the same id', () => {
    const crossings = new HeadroomCrossings();
    expect(crossings.look(place, 5, true)).toBe(5);
    crossings.unsent(place);
    expect(crossings.look(place, 5, true)).toBe(5);
  });

  it('keeps partitions apart, and forgets subscribers no longer watched', () => {
    const crossings = new HeadroomCrossings();
    expect(crossings.look(place, 5, true)).toBe(5);
    expect(crossings.look({ ...place, partition: 1 }, 5, true)).toBe(5);
    expect(crossings.look({ ...place, subscriber: 'crm' }, 5, true)).toBe(5);
    crossings.keepOnly(new Set(['crm']));
    expect(crossings.look(place, 5, true)).toBe(5);
    expect(crossings.look({ ...place, subscriber: 'crm' }, 5, true)).toBeNull();
  });

  it('gives two instances that see one crossing the same notice id', () => {
    const a = new HeadroomCrossings();
    const b = new HeadroomCrossings();
    const seenByA = a.look(place, 41, true);
    const seenByB = b.look(place, 41, true);
    expect(seenByA).not.toBeNull();
    expect(retentionNoticeId(place, seenByA ?? -1)).toBe(retentionNoticeId(place, seenByB ?? -2));
  });
});
