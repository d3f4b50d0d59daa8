import { describe, expect, it } from 'vitest';
import { PortalStoreError } from '../src/index.ts';
import { at, entry, openStore } from './fixtures.ts';

describe('listMessages', () => {
  it('lists a tenant’s messages newest first, with each endpoint’s state', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'e1', at: at(1) }),
      entry({ eventId: 'e2', at: at(2) }),
      entry({
        eventId: 'e2',
        at: at(2),
        subscriber: 'audit-hook',
        step: 'retry-scheduled',
        status: 503,
        tier: 1,
      }),
      entry({ eventId: 'e3', at: at(3) }),
    ]);
    const page = store.listMessages({ tenant: 'acme', limit: 10 });
    expect(page.messages.map((m) => m.eventId)).toEqual(['e3', 'e2', 'e1']);
    expect(page.nextCursor).toBeNull();
    const e2 = page.messages[1];
    expect(e2?.state).toBe('pending');
    expect(e2?.endpoints).toEqual([
      {
        subscriber: 'audit-hook',
        state: 'pending',
        step: 'retry-scheduled',
        attemptCount: 1,
        lastStatus: 503,
        lastAt: at(2),
      },
      {
        subscriber: 'orders-hook',
        state: 'delivered',
        step: 'delivered',
        attemptCount: 1,
        lastStatus: 200,
        lastAt: at(2),
      },
    ]);
  });

  it('pages with a cursor, every message once, none skipped, also across equal times', () => {
    const { store } = openStore();
    // Pairs of messages share a time: the id breaks the tie.
    store.apply(Array.from({ length: 25 }, (_, i) => entry({ eventId: `e${i}`, at: at(Math.floor(i / 2)) })));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = store.listMessages({
        tenant: 'acme',
        limit: 4,
        ...(cursor === undefined ? {} : { cursor }),
      });
      seen.push(...page.messages.map((m) => m.eventId));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    // Newest first; of two first seen at once, the one indexed later first.
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `e${i}`).reverse());
  });

  it('filters by state, type, event id and time', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'ok', at: at(1) }),
      entry({
        eventId: 'dead',
        at: at(2),
        step: 'dead-lettered',
        status: 500,
        deadLetterReason: 'exhausted',
      }),
      entry({ eventId: 'shipped', at: at(3), type: 'shipment.sent' }),
      entry({ eventId: 'skipped', at: at(4), step: 'filtered', attempt: 0 }),
    ]);
    const ids = (q: object) =>
      store.listMessages({ tenant: 'acme', limit: 10, ...q }).messages.map((m) => m.eventId);
    expect(ids({ state: 'failed' })).toEqual(['dead']);
    expect(ids({ state: 'filtered' })).toEqual(['skipped']);
    expect(ids({ state: 'delivered' })).toEqual(['shipped', 'ok']);
    expect(ids({ types: ['shipment.sent'] })).toEqual(['shipped']);
    expect(ids({ types: ['shipment.sent', 'order.created'], state: 'delivered' })).toEqual(['shipped', 'ok']);
    expect(ids({ eventId: 'dead' })).toEqual(['dead']);
    expect(ids({ eventId: 'dead', state: 'delivered' })).toEqual([]);
    expect(ids({ since: at(2), until: at(4) })).toEqual(['shipped', 'dead']);
  });

  it('limited to some endpoints: only messages they had, with their states alone', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'both', at: at(1) }),
      entry({ eventId: 'both', at: at(1), subscriber: 'audit-hook', step: 'dead-lettered', status: 410 }),
      entry({ eventId: 'audit-only', at: at(2), subscriber: 'audit-hook' }),
      entry({ eventId: 'orders-only', at: at(3) }),
    ]);
    const page = store.listMessages({ tenant: 'acme', limit: 10, subscribers: ['orders-hook'] });
    expect(page.messages.map((m) => [m.eventId, m.state, m.endpoints.map((e) => e.subscriber)])).toEqual([
      ['orders-only', 'delivered', ['orders-hook']],
      ['both', 'delivered', ['orders-hook']],
    ]);
    // The other endpoint's failure is neither shown nor found.
    expect(
      store.listMessages({ tenant: 'acme', limit: 10, subscribers: ['orders-hook'], state: 'failed' })
        .messages,
    ).toEqual([]);
    const both = store.listMessages({
      tenant: 'acme',
      limit: 10,
      subscribers: ['orders-hook', 'audit-hook'],
    });
    expect(both.messages.map((m) => [m.eventId, m.state])).toEqual([
      ['orders-only', 'delivered'],
      ['audit-only', 'delivered'],
      ['both', 'failed'],
    ]);
    expect(store.listMessages({ tenant: 'acme', limit: 10, subscribers: [] }).messages).toEqual([]);
  });

  it('pages through several endpoints and types merged, each message once', () => {
    const { store } = openStore();
    const types = ['a.one', 'b.two', 'c.three'];
    store.apply(
      Array.from({ length: 30 }, (_, i) => [
        entry({ eventId: `m${i}`, at: at(i), type: types[i % 3] ?? 'a.one' }),
        entry({ eventId: `m${i}`, at: at(i), type: types[i % 3] ?? 'a.one', subscriber: 'audit-hook' }),
      ]).flat(),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    const query = {
      tenant: 'acme',
      limit: 7,
      subscribers: ['orders-hook', 'audit-hook'],
      types: ['a.one', 'b.two'],
    };
    for (let pages = 0; pages < 10; pages++) {
      const page = store.listMessages({ ...query, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.messages.map((m) => m.eventId));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    const expected = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => i % 3 !== 2)
      .reverse()
      .map((i) => `m${i}`);
    expect(seen).toEqual(expected);
  });

  it('never shows another tenant’s messages', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'mine', at: at(1) }),
      entry({ eventId: 'theirs', at: at(2), tenant: 'globex' }),
    ]);
    expect(store.listMessages({ tenant: 'acme', limit: 10 }).messages.map((m) => m.eventId)).toEqual([
      'mine',
    ]);
    expect(store.listMessages({ tenant: 'acme', limit: 10, eventId: 'theirs' }).messages).toEqual([]);
    expect(store.listMessages({ tenant: 'initech', limit: 10 }).messages).toEqual([]);
  });

  it('refuses input outside its bounds, and cursors it did not give', () => {
    const { store } = openStore();
    const refused = (q: object) => {
      try {
        store.listMessages({ tenant: 'acme', limit: 10, ...q });
        return null;
      } catch (err) {
        return err instanceof PortalStoreError ? err.code : err;
      }
    };
    expect(refused({ limit: 0 })).toBe('BAD_QUERY');
    expect(refused({ limit: 101 })).toBe('BAD_QUERY');
    expect(refused({ tenant: '' })).toBe('BAD_QUERY');
    expect(refused({ types: Array.from({ length: 21 }, (_, i) => `t.n${i}`) })).toBe('BAD_QUERY');
    expect(refused({ since: 'yesterday' })).toBe('BAD_QUERY');
    expect(refused({ cursor: 'bm90LWEtY3Vyc29y' })).toBe('BAD_CURSOR');
    expect(refused({ limit: 100 })).toBeNull();
  });
});
