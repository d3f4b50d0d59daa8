import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import {
  CATCH_UP_MAX_BEHIND,
  CatchUpFeeds,
  type CatchUpRider,
  type PartitionReader,
} from '../../../src/consume/tap/catch-up-feeds.ts';

function record(offset: number): ConsumedRecord {
  return {
    topic: 'events',
    partition: 0,
    offset: String(offset),
    key: null,
    value: Buffer.from(String(offset)),
    headers: { ce_type: 'a' },
    timestampMs: offset,
  };
}

function records(from: number, to: number): ConsumedRecord[] {
  return Array.from({ length: to - from }, (_, i) => record(from + i));
}

/** The reader's calls, in order: `read@<offset>` and `hold`. */
class Reader implements PartitionReader {
  readonly calls: string[] = [];
  running = true;
  read(_partition: number, offset: number): boolean {
    this.calls.push(`read@${offset}`);
    return this.running;
  }
  hold(): void {
    this.calls.push('hold');
  }
}

/** A rider that takes every record until `stopAt`, noting offsets and where it was let go. */
function rider(
  feeds: CatchUpFeeds,
  options: { stopAt?: number; failAt?: number } = {},
): CatchUpRider & { got: number[]; batches: number; lets: number[] } {
  const self = {
    partition: 0,
    got: [] as number[],
    batches: 0,
    lets: [] as number[],
    fromOwnFetch(r: ConsumedRecord): 'next' | 'stop' {
      const offset = Number(r.offset);
      if (offset === options.failAt) throw new Error('handler broke');
      if (offset === options.stopAt) {
        feeds.stop(self);
        return 'stop';
      }
      self.got.push(offset);
      return 'next';
    },
    afterOwnBatch(): void {
      self.batches++;
    },
  };
  return self;
}

function setup() {
  const reader = new Reader();
  const feeds = new CatchUpFeeds(reader);
  feeds.open(0);
  return { reader, feeds };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('CatchUpFeeds: one read of a partition for every lane behind the tap', () => {
  it('reads from the lowest rider, hands each rider its records from its own position, and holds when nobody rides', () => {
    const { reader, feeds } = setup();
    const a = rider(feeds);
    const b = rider(feeds);
    expect(feeds.read(a, 10, (at) => a.lets.push(at))).toBe(true);
    expect(feeds.read(b, 14, (at) => b.lets.push(at))).toBe(true);
    expect(reader.calls).toEqual(['read@10']);
    feeds.receive(0, 10, records(10, 20));
    feeds.receive(0, 20, records(20, 25));
    expect(a.got).toEqual(range(10, 25));
    expect(b.got).toEqual(range(14, 25));
    // Following on from where it was: no seek between batches.
    expect(reader.calls).toEqual(['read@10']);
    feeds.stop(a);
    feeds.stop(b);
    expect(reader.calls).toEqual(['read@10', 'hold']);
    expect(feeds.reads(a)).toBe(false);
  });

  it('goes back for a rider that asks from behind it; a batch fetched before that is handed only to those it reaches', () => {
    const { reader, feeds } = setup();
    const ahead = rider(feeds);
    feeds.read(ahead, 50, () => undefined);
    feeds.receive(0, 50, records(50, 60));
    const behind = rider(feeds);
    feeds.read(behind, 30, () => undefined);
    expect(reader.calls).toEqual(['read@50', 'read@30']);
    // Already under way when it went back: from 60, past `behind`.
    feeds.receive(0, 60, records(60, 65));
    expect(behind.got).toEqual([]);
    expect(ahead.got).toEqual(range(50, 65));
    feeds.receive(0, 30, records(30, 70));
    expect(behind.got).toEqual(range(30, 70));
    expect(ahead.got).toEqual(range(50, 70));
    expect(reader.calls).toEqual(['read@50', 'read@30']);
  });

  it('a rider that stops mid-batch gets nothing more, and one that asks again later is read from there', () => {
    const { reader, feeds } = setup();
    const full = rider(feeds, { stopAt: 5 });
    const other = rider(feeds);
    feeds.read(full, 0, () => undefined);
    feeds.read(other, 0, () => undefined);
    feeds.receive(0, 0, records(0, 10));
    expect(full.got).toEqual(range(0, 5));
    expect(other.got).toEqual(range(0, 10));
    feeds.receive(0, 10, records(10, 12));
    expect(full.got).toEqual(range(0, 5));
    const again = rider(feeds);
    feeds.read(again, 5, () => undefined);
    expect(reader.calls).toEqual(['read@0', 'read@5']);
  });

  it('a rider too far behind the others reads by itself', () => {
    const { feeds } = setup();
    const a = rider(feeds);
    feeds.read(a, CATCH_UP_MAX_BEHIND + 10, () => undefined);
    expect(feeds.read(rider(feeds), 5, () => undefined)).toBe(false);
    expect(feeds.read(rider(feeds), 20, () => undefined)).toBe(true);
  });

  it('a rider that throws is let go at that record; the others still get the batch', () => {
    const { feeds } = setup();
    const broken = rider(feeds, { failAt: 3 });
    const fine = rider(feeds);
    feeds.read(broken, 0, (at) => broken.lets.push(at));
    feeds.read(fine, 0, () => undefined);
    feeds.receive(0, 0, records(0, 8));
    expect(broken.got).toEqual([0, 1, 2]);
    expect(broken.lets).toEqual([3]);
    expect(broken.batches).toBe(1);
    expect(fine.got).toEqual(range(0, 8));
    expect(feeds.reads(broken)).toBe(false);
  });

  it('lets every rider go at its position when the reader stops, and reads for nobody after', () => {
    const { feeds } = setup();
    const a = rider(feeds);
    feeds.read(a, 0, (at) => a.lets.push(at));
    feeds.receive(0, 0, records(0, 4));
    feeds.kill();
    expect(a.lets).toEqual([4]);
    expect(feeds.read(rider(feeds), 4, () => undefined)).toBe(false);
  });

  it('lets a rider go when the reader cannot reach it (the log starts past it)', () => {
    const { reader, feeds } = setup();
    const lost = rider(feeds);
    feeds.read(lost, 5, (at) => lost.lets.push(at));
    // Every answer starts at 100: the offsets below were deleted.
    for (let i = 0; i < 12 && lost.lets.length === 0; i++) feeds.receive(0, 100, records(100, 110));
    expect(lost.got).toEqual([]);
    expect(lost.lets).toEqual([5]);
    expect(reader.calls.at(-1)).toBe('hold');
  });

  it('a reader that is not running lets the riders go', () => {
    const { reader, feeds } = setup();
    reader.running = false;
    const a = rider(feeds);
    expect(feeds.read(a, 0, (at) => a.lets.push(at))).toBe(false);
    expect(feeds.read(rider(feeds), 0, () => undefined)).toBe(false);
  });
});
