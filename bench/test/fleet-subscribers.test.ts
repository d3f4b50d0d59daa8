import { describe, expect, it } from 'vitest';
import { benchFleetSubscribers, subscriberRecords } from '../src/fleet-subscribers.ts';

const urls = {
  url: 'http://127.0.0.1:9/',
  doomedUrl: 'http://127.0.0.1:10/',
  secretEnv: 'HOOKSTREAM_SECRET_X',
};

describe('the fleet bench subscribers', () => {
  it('routes by an event type each by default: no tenant, version-2 records', () => {
    const subs = benchFleetSubscribers('bench-fleet-x', 3, 2, 1);
    expect(subs).toEqual([
      { name: 'bench-fleet-x-0001', eventType: 'bench.s0001', role: 'active' },
      { name: 'bench-fleet-x-0002', eventType: 'bench.s0002', role: 'doomed' },
      { name: 'bench-fleet-x-0003', eventType: 'bench.s0003', role: 'idle' },
    ]);
    const records = subscriberRecords(subs, urls);
    expect(records.map((r) => r.version)).toEqual([2, 2, 2]);
    expect(records.map((r) => r.definition.tenant)).toEqual([undefined, undefined, undefined]);
  });

  it('routes by a tenant each on one shared type: version-4 records that carry the tenant', () => {
    const subs = benchFleetSubscribers('bench-fleet-x', 3, 2, 1, 'tenant');
    expect(subs.map((s) => s.tenant)).toEqual(['t-0001', 't-0002', 't-0003']);
    expect(new Set(subs.map((s) => s.eventType)).size).toBe(1);
    expect(subs.map((s) => s.role)).toEqual(['active', 'doomed', 'idle']);
    const records = subscriberRecords(subs, urls);
    expect(records.map((r) => r.version)).toEqual([4, 4, 4]);
    expect(records.map((r) => r.definition.tenant)).toEqual(['t-0001', 't-0002', 't-0003']);
    expect(records.map((r) => r.definition.url)).toEqual([urls.url, urls.doomedUrl, urls.url]);
  });
});
