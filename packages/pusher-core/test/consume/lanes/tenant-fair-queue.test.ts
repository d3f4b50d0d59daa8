import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import { TenantFairQueue } from '../../../src/consume/lanes/tenant-fair-queue.ts';

const record = (offset: number, tenant: string | null, key: string | null = null): ConsumedRecord => ({
  topic: 'events',
  partition: 0,
  offset: String(offset),
  key,
  value: null,
  headers: tenant === null ? { ce_type: 'a.b' } : { ce_type: 'a.b', ce_tenant: tenant },
  timestampMs: offset,
});

function drain(queue: TenantFairQueue): number[] {
  const taken: number[] = [];
  for (let r = queue.take(); r !== undefined; r = queue.take()) taken.push(Number(r.offset));
  return taken;
}

describe('TenantFairQueue', () => {
  it('takes the tenants in turn, each oldest first; records without a tenant take one turn as one more', () => {
    const queue = new TenantFairQueue('none');
    for (const [offset, tenant] of [
      [1, 'a'],
      [2, 'a'],
      [3, 'a'],
      [4, null],
      [5, 'b'],
      [6, 'a'],
      [7, 'b'],
    ] as const)
      queue.push(record(offset, tenant));
    expect(queue.tenants).toBe(3);
    expect(drain(queue)).toEqual([1, 4, 5, 2, 7, 3, 6]);
    expect(queue.length).toBe(0);
  });

  it('a tenant that arrives later takes its turn after those already waiting', () => {
    const queue = new TenantFairQueue('none');
    for (let o = 1; o <= 4; o++) queue.push(record(o, 'a'));
    queue.push(record(5, 'b'));
    expect(queue.take()?.offset).toBe('1');
    queue.push(record(6, 'c'));
    expect(drain(queue)).toEqual([5, 2, 6, 3, 4]);
  });

  it('with key ordering passes over a tenant whose next record waits on an older one of its key', () => {
    const queue = new TenantFairQueue('key');
    queue.push(record(1, 'a', 'k1'));
    queue.push(record(2, 'a', 'shared'));
    queue.push(record(3, 'b', 'shared'));
    queue.push(record(4, 'b', 'k4'));
    queue.push(record(5, 'c', 'k5'));
    // a's 1; b's 3 waits on a's 2 (same key): c goes; then a's 2, then b's 3 and 4.
    expect(drain(queue)).toEqual([1, 5, 2, 3, 4]);
  });

  it('without key ordering the keys do not matter, and clear empties it', () => {
    const queue = new TenantFairQueue('none');
    queue.push(record(1, 'a', 'shared'));
    queue.push(record(2, 'a', 'shared'));
    queue.push(record(3, 'b', 'shared'));
    expect(drain(queue)).toEqual([1, 3, 2]);
    queue.push(record(4, 'a'));
    queue.clear();
    expect(queue.take()).toBeUndefined();
    expect(queue.length).toBe(0);
  });
});
