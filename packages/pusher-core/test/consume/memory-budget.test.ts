import { describe, expect, it } from 'vitest';
import { MemoryBudget, recordBytes } from '../../src/consume/memory-budget.ts';

describe('MemoryBudget', () => {
  it('reserves what fits and refuses more to a holder that holds something', () => {
    const budget = new MemoryBudget(1000);
    expect(budget.tryReserve(600, 0)).toBe(true);
    expect(budget.tryReserve(300, 600)).toBe(true);
    expect(budget.tryReserve(200, 900)).toBe(false);
    expect(budget.held).toBe(900);
    budget.release(300);
    expect(budget.tryReserve(200, 600)).toBe(true);
    expect(budget.held).toBe(800);
  });

  it('always grants one record to a holder that holds nothing, however large', () => {
    const budget = new MemoryBudget(1000);
    expect(budget.tryReserve(900, 0)).toBe(true);
    expect(budget.tryReserve(5000, 0)).toBe(true);
    expect(budget.held).toBe(5900);
    expect(budget.tryReserve(1, 5000)).toBe(false);
  });

  it('evicts caches before it refuses, and a cache is never owed room', () => {
    const budget = new MemoryBudget(1000);
    let cached = 800;
    budget.addCache({
      evict: (bytes) => {
        const freed = Math.min(cached, Math.max(bytes, 100));
        cached -= freed;
        budget.release(freed);
        return freed;
      },
    });
    expect(budget.tryReserveForCache(800)).toBe(true);
    expect(budget.tryReserve(500, 1)).toBe(true);
    expect(cached).toBe(500);
    expect(budget.held).toBe(1000);
    expect(budget.tryReserveForCache(600)).toBe(false);
    expect(cached).toBe(0);
    expect(budget.held).toBe(500);
  });

  it('counts the fetches paused now and every pause so far', () => {
    const budget = new MemoryBudget(1000);
    const a = {};
    const b = {};
    budget.fetchPaused(a);
    budget.fetchPaused(a);
    budget.fetchPaused(b);
    expect(budget.pausedFetches).toBe(2);
    budget.fetchResumed(a);
    budget.fetchResumed(a);
    expect(budget.pausedFetches).toBe(1);
    budget.fetchPaused(a);
    expect(budget.pauses).toBe(3);
  });

  it('refuses a limit that is not a positive number of bytes', () => {
    expect(() => new MemoryBudget(0)).toThrow(RangeError);
    expect(() => new MemoryBudget(Number.NaN)).toThrow(RangeError);
  });

  it("counts a record's value, key and headers", () => {
    const bytes = recordBytes({ key: 'ké', value: Buffer.alloc(100), headers: { ce_type: 'a.b' } });
    expect(bytes).toBe(100 + 3 + 7 + 3);
    expect(recordBytes({ key: null, value: null, headers: {} })).toBe(0);
  });
});
