import { EventSelection } from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import { MemoryBudget, recordBytes } from '../../../src/consume/memory-budget.ts';
import { TapFeeds, type TapRider } from '../../../src/consume/tap/tap-feeds.ts';

function record(offset: number, type: string, size = 400, tenant?: string): ConsumedRecord {
  return {
    topic: 'events',
    partition: 0,
    offset: String(offset),
    key: null,
    value: Buffer.alloc(size, offset),
    headers: tenant === undefined ? { ce_type: type } : { ce_type: type, ce_tenant: tenant },
    timestampMs: offset,
  };
}

/** A rider that takes everything of its types and notes what it got. */
function rider(
  types: string[] | null,
  tenant: string | null = null,
): TapRider & { readonly got: ConsumedRecord[] } {
  const got: ConsumedRecord[] = [];
  return {
    got,
    selection: new EventSelection(types === null ? null : new Set(types), tenant),
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

  it('covers a type wanted anew from the cursor on, and keeps what it kept of the others', () => {
    const budget = new MemoryBudget(1_000_000);
    const feeds = new TapFeeds(100, budget);
    const unwantA = feeds.want(A);
    feeds.open(0, 0);
    feeds.receive(0, 0, [record(0, 'a'), record(1, 'b')]);
    feeds.want(B);
    // A fleet starting its subscribers one after another: each new type leaves the others' riders
    // their recent records.
    expect(budget.held).toBe(recordBytes(record(0, 'a')));
    expect(feeds.covers(0, 0, A)).toBe(true);
    expect(feeds.covers(0, 1, B)).toBe(false);
    expect(feeds.covers(0, 2, B)).toBe(true);
    expect(feeds.covers(0, 0, new Set(['a', 'b']))).toBe(false);
    expect(feeds.covers(0, 2, new Set(['a', 'b']))).toBe(true);
    const late = rider(['a']);
    expect(feeds.attach(0, late, 0)).toBe(true);
    expect(late.got.map((r) => r.offset)).toEqual(['0']);
    feeds.detach(0, late);
    expect(feeds.attach(0, rider(['b']), 1)).toBe(false);
    // Nobody takes `a` any more: its records are not kept, and its riders are not covered.
    unwantA();
    unwantA();
    feeds.receive(0, 2, [record(2, 'a'), record(3, 'b')]);
    expect(budget.held).toBe(recordBytes(record(0, 'a')) + recordBytes(record(3, 'b')));
    expect(feeds.covers(0, 2, A)).toBe(false);
    feeds.want(null);
    expect(feeds.covers(0, 3, A)).toBe(false);
    expect(feeds.covers(0, 4, A)).toBe(true);
    expect(feeds.covers(0, 2, B)).toBe(true);
    // A partition opened later covers every type wanted from its first offset.
    feeds.open(1, 10);
    expect(feeds.covers(1, 10, A)).toBe(true);
    expect(feeds.covers(1, 10, null)).toBe(true);
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

  it('offers a joining rider every recent record even when what it takes evicts them', () => {
    // A lane with a full window queues what it is offered and reserves it in the budget, which
    // evicts the tap's oldest recent records while the tap is still handing them out.
    const size = recordBytes(record(0, 'a'));
    const budget = new MemoryBudget(size * 6);
    const feeds = new TapFeeds(100, budget);
    feeds.want(A);
    feeds.open(0, 0);
    feeds.receive(
      0,
      0,
      [0, 1, 2, 3, 4, 5].map((o) => record(o, 'a')),
    );
    const got: string[] = [];
    const queuing: TapRider = {
      selection: new EventSelection(A, null),
      offer: (r) => {
        budget.tryReserve(recordBytes(r), got.length);
        got.push(r.offset);
        return true;
      },
      released: () => undefined,
    };
    expect(feeds.attach(0, queuing, 0)).toBe(true);
    expect(got).toEqual(['0', '1', '2', '3', '4', '5']);
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

describe('TapFeeds and tenants', () => {
  const offsets = (r: { got: ConsumedRecord[] }) => r.got.map((g) => Number(g.offset));

  it('hands a record to the riders of its type and tenant and to those without a tenant, nobody else', () => {
    const feeds = new TapFeeds(100);
    feeds.want(null);
    feeds.open(0, 0);
    const acmeA = rider(['a'], 'acme');
    const acmeAll = rider(null, 'acme');
    const globexA = rider(['a'], 'globex');
    const openA = rider(['a']);
    const openAll = rider(null);
    for (const r of [acmeA, acmeAll, globexA, openA, openAll]) expect(feeds.attach(0, r, 0)).toBe(true);
    feeds.receive(0, 0, [
      record(0, 'a', 10, 'acme'),
      record(1, 'b', 10, 'acme'),
      record(2, 'a', 10, 'globex'),
      record(3, 'a', 10),
      record(4, 'a', 10, 'initech'),
    ]);
    expect(offsets(acmeA)).toEqual([0]);
    expect(offsets(acmeAll)).toEqual([0, 1]);
    expect(offsets(globexA)).toEqual([2]);
    expect(offsets(openA)).toEqual([0, 2, 3, 4]);
    expect(offsets(openAll)).toEqual([0, 1, 2, 3, 4]);
  });

  it("a record without a type reaches the riders of its tenant and those without one (to be dead-lettered), not other tenants'", () => {
    const feeds = new TapFeeds(100);
    feeds.want(null);
    feeds.open(0, 0);
    const acme = rider(['a'], 'acme');
    const globex = rider(['a'], 'globex');
    const open = rider(['a']);
    for (const r of [acme, globex, open]) feeds.attach(0, r, 0);
    const untyped: ConsumedRecord = { ...record(0, 'a', 10, 'acme'), headers: { ce_tenant: 'acme' } };
    feeds.receive(0, 0, [untyped]);
    expect([offsets(acme), offsets(globex), offsets(open)]).toEqual([[0], [], [0]]);
  });

  it("a rider joining late gets only its tenant's recent records", () => {
    const feeds = new TapFeeds(100);
    feeds.want(A);
    feeds.open(0, 0);
    feeds.receive(0, 0, [record(0, 'a', 10, 'acme'), record(1, 'a', 10), record(2, 'a', 10, 'globex')]);
    const acme = rider(['a'], 'acme');
    expect(feeds.attach(0, acme, 0)).toBe(true);
    expect(offsets(acme)).toEqual([0]);
    const open = rider(['a']);
    expect(feeds.attach(0, open, 0)).toBe(true);
    expect(offsets(open)).toEqual([0, 1, 2]);
  });

  it('a detached rider gets nothing more, and a tenant nobody rides leaves the index', () => {
    const feeds = new TapFeeds(100);
    feeds.want(null);
    feeds.open(0, 0);
    const acme = rider(['a', 'b'], 'acme');
    feeds.attach(0, acme, 0);
    feeds.detach(0, acme);
    feeds.receive(0, 0, [record(0, 'a', 10, 'acme')]);
    expect(offsets(acme)).toEqual([]);
    // Attaching again after the tenant's index was dropped works as the first time.
    expect(feeds.attach(0, acme, 1)).toBe(true);
    feeds.receive(0, 1, [record(1, 'b', 10, 'acme')]);
    expect(offsets(acme)).toEqual([1]);
  });

  it('a record costs its own tenant and type, whatever the number of riders of other tenants', () => {
    const feeds = new TapFeeds(10);
    feeds.want(null);
    feeds.open(0, 0);
    let offered = 0;
    const counting = (tenant: string): TapRider => ({
      selection: new EventSelection(A, tenant),
      offer: () => {
        offered++;
        return true;
      },
      released: () => undefined,
    });
    for (let i = 0; i < 1000; i++) feeds.attach(0, counting(`t${i}`), 0);
    feeds.receive(0, 0, [record(0, 'a', 10, 't7'), record(1, 'a', 10, 'nobody'), record(2, 'a', 10)]);
    // One rider of t7; none for a tenant nobody rides or a record without one.
    expect(offered).toBe(1);
  });
});
