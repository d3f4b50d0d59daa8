import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaseBook, type LeaseEnd, type LeaseEntry } from '../src/lease-book.ts';

/** An entry of `topic:partition` at `offset`, recording how its lease times ended. */
function entry(partition: number, offset: number, ends: LeaseEnd[] = []) {
  const e: LeaseEntry & { ends: LeaseEnd[] } = {
    eventId: `evt-${partition}-${offset}`,
    cursor: `events:${partition}:${offset}`,
    lane: `events:${partition}`,
    offset: BigInt(offset),
    render: (attempt) => JSON.stringify({ event_id: `evt-${partition}-${offset}`, attempt }),
    attempts: 0,
    ended: (end) => ends.push(end),
    ends,
  };
  return e;
}

const ids = (bodies: readonly string[]) =>
  bodies.map((b) => (JSON.parse(b) as { event_id: string }).event_id);

describe('LeaseBook', () => {
  afterEach(() => vi.useRealTimers());

  it('hands each waiting event to one lease, in order, with a cursor per partition', () => {
    const book = new LeaseBook();
    const entries = [entry(0, 1), entry(1, 7), entry(0, 2), entry(0, 3)];
    for (const e of entries) book.offer(e);
    const first = book.lease(3, 30_000);
    const second = book.lease(3, 30_000);
    expect(ids(first?.bodies ?? [])).toEqual(['evt-0-1', 'evt-1-7', 'evt-0-2']);
    expect([...(first?.cursors ?? [])].sort()).toEqual(['events:0:2', 'events:1:7']);
    expect(ids(second?.bodies ?? [])).toEqual(['evt-0-3']);
    expect(book.lease(3, 30_000)).toBeNull();
    expect(book.leases).toBe(2);
  });

  it('an ack by cursor settles what the lease holds up to it on that partition, and the lease ends with its last', () => {
    const book = new LeaseBook();
    const entries = [entry(0, 1), entry(0, 2), entry(1, 5)];
    for (const e of entries) book.offer(e);
    const lease = book.lease(10, 30_000);
    if (lease === null) throw new Error('a lease');
    expect(book.ack(lease.id, { cursors: ['events:0:2'] })).toEqual({ ok: true, count: 2 });
    expect(entries.map((e) => e.ends.map((x) => x.kind))).toEqual([['acked'], ['acked'], []]);
    expect(book.ack(lease.id, { eventIds: ['evt-1-5'] })).toEqual({ ok: true, count: 1 });
    expect(book.leases).toBe(0);
    expect(book.ack(lease.id, {})).toMatchObject({ ok: false, code: 'lease_expired' });
  });

  it('refuses a foreign cursor, a cursor already past, an unknown lease or event, moving nothing', () => {
    const book = new LeaseBook();
    const entries = [entry(0, 1), entry(0, 2)];
    for (const e of entries) book.offer(e);
    const lease = book.lease(10, 30_000);
    if (lease === null) throw new Error('a lease');
    // 0:1 was not handed out as a cursor (0:2 was); a mix of a good and a bad one moves nothing.
    expect(book.ack(lease.id, { cursors: ['events:0:2', 'events:0:1'] })).toMatchObject({
      ok: false,
      code: 'cursor_unknown',
    });
    expect(book.ack(lease.id, { cursors: ['other:0:2'] })).toMatchObject({
      ok: false,
      code: 'cursor_unknown',
    });
    expect(book.ack('lease_nope', {})).toMatchObject({ ok: false, code: 'lease_unknown' });
    expect(book.ack(lease.id, { eventIds: ['evt-9-9'] })).toMatchObject({
      ok: false,
      code: 'event_not_leased',
    });
    expect(entries.every((e) => e.ends.length === 0)).toBe(true);
    expect(book.ack(lease.id, { eventIds: ['evt-0-1', 'evt-0-2'] })).toEqual({ ok: true, count: 2 });
  });

  it('an empty list names nothing (only leaving both out means the whole lease)', () => {
    const book = new LeaseBook();
    const e = entry(0, 1);
    book.offer(e);
    const lease = book.lease(10, 30_000);
    expect(book.ack(lease?.id ?? '', { eventIds: [] })).toEqual({ ok: true, count: 0 });
    expect(e.ends).toEqual([]);
    expect(book.ack(lease?.id ?? '', {})).toEqual({ ok: true, count: 1 });
  });

  it('a cursor whose events were all answered is past', () => {
    const book = new LeaseBook();
    for (const e of [entry(0, 1), entry(0, 2), entry(1, 1)]) book.offer(e);
    const lease = book.lease(10, 30_000);
    if (lease === null) throw new Error('a lease');
    expect(book.ack(lease.id, { eventIds: ['evt-0-1', 'evt-0-2'] })).toMatchObject({ ok: true });
    expect(book.ack(lease.id, { cursors: ['events:0:2'] })).toMatchObject({ ok: false, code: 'cursor_past' });
  });

  it('an expired lease ends its events as expired; offered again, they go first with the next attempt', () => {
    vi.useFakeTimers();
    const book = new LeaseBook();
    const old = entry(0, 1);
    book.offer(old);
    const lease = book.lease(10, 5000);
    book.offer(entry(0, 2));
    vi.advanceTimersByTime(5000);
    expect(old.ends).toEqual([{ kind: 'expired', atMs: expect.any(Number) }]);
    expect(book.ack(lease?.id ?? '', {})).toMatchObject({ ok: false, code: 'lease_expired' });
    book.offer(old, true);
    const next = book.lease(10, 5000);
    expect((next?.bodies ?? []).map((b) => JSON.parse(b))).toEqual([
      { event_id: 'evt-0-1', attempt: 2 },
      { event_id: 'evt-0-2', attempt: 1 },
    ]);
  });

  it('a nack ends the named events with its delay; a withdrawn event leaves its lease', () => {
    const book = new LeaseBook();
    const [a, b, c] = [entry(0, 1), entry(0, 2), entry(0, 3)];
    for (const e of [a, b, c]) book.offer(e);
    const lease = book.lease(10, 30_000);
    if (lease === null || a === undefined || b === undefined || c === undefined) throw new Error('a lease');
    expect(book.nack(lease.id, { eventIds: ['evt-0-1'] }, 60_000)).toEqual({ ok: true, count: 1 });
    expect(a.ends).toEqual([{ kind: 'nacked', atMs: expect.any(Number), delayMs: 60_000 }]);
    book.withdraw(b);
    expect(b.ends).toEqual([{ kind: 'left' }]);
    expect(book.ack(lease.id, { eventIds: ['evt-0-2'] })).toMatchObject({
      ok: false,
      code: 'event_not_leased',
    });
    expect(book.ack(lease.id, {})).toEqual({ ok: true, count: 1 });
    expect(c.ends.map((e) => e.kind)).toEqual(['acked']);
  });

  it('a long poll wakes when an event arrives, and ends at its wait otherwise', async () => {
    // On a fake clock: woken by the offer means resolved with no time passing after it, which a
    // real clock could only bound loosely (it was under 5 s of a 10 s wait).
    vi.useFakeTimers();
    const book = new LeaseBook();
    const signal = new AbortController().signal;
    let woke = false;
    const woken = book.waitForEntries(10_000, signal).then(() => {
      woke = true;
    });
    await vi.advanceTimersByTimeAsync(20);
    expect(woke).toBe(false);
    book.offer(entry(0, 1));
    await woken;
    expect(book.available).toBe(1);
    book.lease(1, 1000);
    let ended = false;
    const waited = book.waitForEntries(30, signal).then(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(29);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waited;
    expect(book.available).toBe(0);
    book.close();
  });
});
