import { describe, expect, it } from 'vitest';
import { ledgerLag } from '../src/subscriber-status.ts';

const ranges = [
  { partition: 0, low: '10', high: '50' },
  { partition: 1, low: '0', high: '7' },
  { partition: 2, low: '3', high: '3' },
];

describe('ledgerLag', () => {
  it('is null before the group committed on any partition', () => {
    expect(ledgerLag([], ranges)).toBeNull();
    expect(ledgerLag([{ partition: 0, offset: null }], ranges)).toBeNull();
  });

  it('sums end − ledger, counting a partition without a ledger from its low mark', () => {
    // 50 − 45, then 7 − 0 (no ledger), then nothing held.
    expect(ledgerLag([{ partition: 0, offset: '45' }], ranges)).toBe(12);
    expect(
      ledgerLag(
        [
          { partition: 0, offset: '50' },
          { partition: 1, offset: null },
          { partition: 2, offset: '3' },
        ],
        ranges,
      ),
    ).toBe(7);
  });

  it('never counts below zero where a ledger is ahead of the end it read', () => {
    expect(ledgerLag([{ partition: 1, offset: '9' }], [{ partition: 1, low: '0', high: '7' }])).toBe(0);
  });
});
