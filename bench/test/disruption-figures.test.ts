import type { Arrival } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { tallyArrivals, windowFigures } from '../src/disruption-figures.ts';
import { benchShards } from '../src/fleet-instances-bench.ts';
import type { Published } from '../src/steady-load.ts';

const arrival = (eventId: string, atMs: number, status = 200): Arrival => ({
  atMs,
  status,
  eventId,
  subscriptionId: null,
});
const sub = (name: string) => ({ name, eventType: `t.${name}`, role: 'active' as const });

describe('a disruption window, from the receiver', () => {
  const published: Published[] = [
    { id: 'a1', at: 1000, subscriber: sub('a') },
    { id: 'a2', at: 1500, subscriber: sub('a') },
    { id: 'b1', at: 1200, subscriber: sub('b') },
    { id: 'b2', at: 9000, subscriber: sub('b') }, // after the window
    { id: 'a3', at: 1800, subscriber: sub('a') }, // never arrives
  ];
  const tally = tallyArrivals([
    arrival('a1', 1100),
    arrival('a2', 4500), // 3 s late
    arrival('a1', 4600), // a duplicate inside the window
    arrival('b1', 1300, 500), // refused: does not count
    arrival('b1', 1400),
    arrival('b2', 9100),
    arrival('b2', 9200), // a duplicate after the window
  ]);
  const f = windowFigures(
    published,
    tally,
    { from: 1000, to: 6000 },
    (p) => p.subscriber.name === 'a',
    false,
  );

  it('splits moved from unmoved, counts the lost, times the stall from the last late arrival', () => {
    expect(f.moved).toMatchObject({ published: 3, delivered: 2, lost: 1 });
    expect(f.moved.latency.maxMs).toBe(3000);
    expect(f.unmoved).toMatchObject({ published: 1, delivered: 1, lost: 0 });
    expect(f.unmoved?.latency.maxMs).toBe(200);
    expect(f.stallSeconds).toBe(3.5);
  });

  it('counts a duplicate in the window its repeat arrived in, and only accepted arrivals', () => {
    expect(f.duplicates).toBe(1);
    expect(tally.repeats).toEqual([4600, 9200]);
    // Named one by one, in the window they arrived in.
    expect(f.repeated).toEqual([
      {
        eventId: 'a1',
        subscriptionId: null,
        firstAt: new Date(1100).toISOString(),
        repeatAt: new Date(4600).toISOString(),
        repeatAtMs: 4600,
      },
    ]);
  });

  it('has no unmoved set when every subscriber moved (one shard)', () => {
    expect(windowFigures(published, tally, { from: 0, to: 2000 }, () => true, true).unmoved).toBeNull();
  });
});

describe('benchShards', () => {
  it('splits subscribers and the active ones evenly, and each shard matches only its own names', () => {
    const shards = benchShards('p', { subscribers: 11, shards: 3, active: 5 });
    expect(shards.map((s) => s.subscribers.length)).toEqual([4, 4, 3]);
    expect(shards.map((s) => s.subscribers.filter((x) => x.role === 'active').length)).toEqual([2, 2, 1]);
    expect(shards.map((s) => s.match)).toEqual(['p-s1-*', 'p-s2-*', 'p-s3-*']);
    expect(shards[0]?.subscribers[0]?.name).toBe('p-s1-0001');
  });

  it('gives every subscriber of every shard its own event type: an event reaches one subscriber', () => {
    const types = benchShards('p', { subscribers: 11, shards: 3, active: 5 }).flatMap((s) =>
      s.subscribers.map((x) => x.eventType),
    );
    expect(new Set(types).size).toBe(11);
    expect(types[0]).toBe('bench.k1.s0001');
  });
});
