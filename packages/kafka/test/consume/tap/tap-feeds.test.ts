import { describe, expect, it } from 'vitest';
import type { ConsumedRecord } from '../../../src/consume/consumed-record.ts';
import { MemoryBudget, recordBytes } from '../../../src/consume/memory-budget.ts';
import { TapFeeds, type TapRider } from '../../../src/consume/tap/tap-feeds.ts';

function record(offset: number, type: string, size = 400): ConsumedRecord {
  return {
    topic: 'events',
    partition: 0,
    offset: String(offset),
    key: null,
    value: Buffer.alloc(size, offset),
    headers: { ce_type: type },
    timestampMs: offset,
  };
}

/** A rider that takes everything of its types and notes what it got. */
function rider(types: string[]): TapRider & { readonly got: ConsumedRecord[] } {
  const set = new Set(types);
  const got: ConsumedRecord[] = [];
  return {
    got,
    types: set,
    accepts: (type) => set.has(type),
    offer: (r) => {
      got.push(r);
      return true;
    },
    released: () => undefined,
  };
}

const A = new Set(['a']);
const B = new Set(['b']);

describe('TapFeeds and the memory budget', () => {
  it('keeps no recent record of a type no subscriber of the process takes', () => {
    const budget = new MemoryBudget(1_000_000);
    const feeds = new TapFeeds(100, budget);
    feeds.want(A);
    feeds.open(0, 0);
    const records = [record(0, 'b'), record(1, 'a'), record(2, 'b'), record(3, 'a')];
    feeds.receive(0, 0, records);
    expect(budget.held).toBe(recordBytes(records[1] as ConsumedRecord) * 2);
    // A late rider of `a` gets both; one of `b` was never kept for, so it is not covered.
    const late = rider(['a']);
    expect(feeds.covers(0, 0, A)).toBe(true);
    expect(feeds.attach(0, late, 0)).toBe(true);
    expect(late.got.map((r) => r.offset)).toEqual(['1', '3']);
    expect(feeds.covers(0, 0, B)).toBe(false);
    expect(feeds.attach(0, rider(['b']), 0)).toBe(false);
  });

  it('forgets its recent records when a type becomes wanted, so its riders start from there', () => {
    const budget = new MemoryBudget(1_000_000);
    const feeds = new TapFeeds(100, budget);
    const unwantA = feeds.want(A);
    feeds.open(0, 0);
    feeds.receive(0, 0, [record(0, 'a'), record(1, 'b')]);
    feeds.want(B);
    expect(budget.held).toBe(0);
    expect(feeds.covers(0, 0, A)).toBe(false);
    expect(feeds.covers(0, 2, B)).toBe(true);
    // Nobody takes `a` any more: its records are not kept, and its riders are not covered.
    unwantA();
    unwantA();
    feeds.receive(0, 2, [record(2, 'a'), record(3, 'b')]);
    expect(budget.held).toBe(recordBytes(record(3, 'b')));
    expect(feeds.covers(0, 2, A)).toBe(false);
    feeds.want(null);
    expect(feeds.covers(0, 4, A)).toBe(true);
  });

  it('keeps copies, not slices of the fetch response', () => {
    const feeds = new TapFeeds(100, new MemoryBudget(1_000_000));
    feeds.want(A);
    feeds.open(0, 0);
    const riding = rider(['a']);
    feeds.attach(0, riding, 0);
    const fetched = record(0, 'a');
    feeds.receive(0, 0, [fetched]);
    const kept = riding.got[0];
    expect(kept?.value).toEqual(fetched.value);
    expect(kept?.value?.buffer).not.toBe(fetched.value?.buffer);
  });

  it('gives up its oldest recent records when another holder needs the room', () => {
    const size = recordBytes(record(0, 'a'));
    const budget = new MemoryBudget(size * 4);
    const feeds = new TapFeeds(100, budget);
    feeds.want(A);
    feeds.open(0, 0);
    feeds.receive(0, 0, [record(0, 'a'), record(1, 'a'), record(2, 'a')]);
    expect(budget.tryReserve(size * 2, 1)).toBe(true);
    expect(budget.held).toBe(size * 4);
    expect(feeds.covers(0, 0, A)).toBe(false);
    expect(feeds.covers(0, 1, A)).toBe(true);
    // Its own next record evicts its oldest too.
    feeds.receive(0, 3, [record(3, 'a')]);
    expect(feeds.covers(0, 1, A)).toBe(false);
    expect(feeds.covers(0, 2, A)).toBe(true);
    expect(budget.held).toBe(size * 4);
  });

  it('keeps nothing it has no room for, yet hands the record to its riders', () => {
    const budget = new MemoryBudget(100);
    const feeds = new TapFeeds(100, budget);
    feeds.want(A);
    feeds.open(0, 0);
    const riding = rider(['a']);
    feeds.attach(0, riding, 0);
    feeds.receive(0, 0, [record(0, 'a')]);
    expect(riding.got.map((r) => r.offset)).toEqual(['0']);
    expect(budget.held).toBe(0);
    expect(feeds.covers(0, 0, A)).toBe(false);
    expect(feeds.covers(0, 1, A)).toBe(true);
  });

  it('releases what it kept when trimmed and when it stops', () => {
    const budget = new MemoryBudget(1_000_000);
    const feeds = new TapFeeds(2, budget);
    feeds.want(A);
    feeds.open(0, 0);
    feeds.receive(
      0,
      0,
      [0, 1, 2, 3].map((o) => record(o, 'a')),
    );
    // More than half as many again as it keeps: trimmed back to two.
    expect(budget.held).toBe(recordBytes(record(0, 'a')) * 2);
    feeds.kill();
    expect(budget.held).toBe(0);
  });
});
