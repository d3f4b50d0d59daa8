import { describe, expect, it } from 'vitest';
import type { ConsumedRecord } from '../../src/consume/consumed-record.ts';
import { carriedRewind, markedRecord, rewindMarkOf } from '../../src/consume/group/ledger-rewind.ts';

const rewind = { untilOffset: 10, atMs: 1_000, by: 'alice' };

function record(offset: number): ConsumedRecord {
  return {
    topic: 'events',
    partition: 0,
    offset: String(offset),
    key: null,
    value: null,
    headers: {},
    timestampMs: 0,
  };
}

describe('the carry-forward rule', () => {
  it.each<[string, number, boolean]>([
    ['at the rewound offset', 2, true],
    ['mid-range', 9, true],
    ['at untilOffset: the range is read', 10, false],
    ['past it', 11, false],
  ])('a commit %s carries the mark: %s', (_, offset, carried) => {
    expect(carriedRewind(rewind, offset)).toBe(carried ? rewind : null);
  });

  it('no rewind, nothing carried', () => {
    expect(carriedRewind(null, 0)).toBeNull();
    expect(carriedRewind(undefined, 0)).toBeNull();
  });
});

describe('markedRecord', () => {
  const mark = rewindMarkOf(rewind);

  it('marks a record below untilOffset with who rewound and when', () => {
    const r = record(9);
    const marked = markedRecord(r, 9, rewind, mark);
    expect(marked).toEqual({ ...r, rewound: { atMs: 1_000, by: 'alice' } });
    expect(r.rewound).toBeUndefined();
  });

  it('hands every other record over as it is: no copy outside a rewound range', () => {
    const r = record(10);
    expect(markedRecord(r, 10, rewind, mark)).toBe(r);
    expect(markedRecord(r, 3, null, null)).toBe(r);
  });
});
