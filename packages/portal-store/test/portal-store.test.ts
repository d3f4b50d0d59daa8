import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS_PER_ENDPOINT } from '../src/index.ts';
import { at, entry, openStore, reopen } from './fixtures.ts';

describe('message state across steps', () => {
  it('retry then delivered is delivered; retry then dead-lettered is failed', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'saved', at: at(1), step: 'retry-scheduled', status: 503, tier: 1, dueAt: at(2) }),
      entry({ eventId: 'saved', at: at(2), attempt: 2 }),
      entry({ eventId: 'lost', at: at(1), step: 'retry-scheduled', status: 503, tier: 1 }),
      entry({
        eventId: 'lost',
        at: at(2),
        attempt: 2,
        step: 'dead-lettered',
        status: 503,
        deadLetterReason: 'exhausted',
      }),
    ]);
    const states = store
      .listMessages({ tenant: 'acme', limit: 10 })
      .messages.map((m) => [m.eventId, m.state]);
    expect(states).toEqual([
      ['lost', 'failed'],
      ['saved', 'delivered'],
    ]);
    expect(store.getMessage('acme', 'saved')?.endpoints[0]).toMatchObject({
      attemptCount: 2,
      step: 'delivered',
    });
  });

  it('a step arriving after a newer one does not replace it, but counts and moves first_at', () => {
    const { store } = openStore();
    store.apply([entry({ eventId: 'e', at: at(5), attempt: 2 })]);
    store.apply([entry({ eventId: 'e', at: at(1), step: 'retry-scheduled', status: 500 })]);
    const message = store.getMessage('acme', 'e');
    expect(message).toMatchObject({ state: 'delivered', firstAt: at(1), lastAt: at(5) });
    expect(message?.endpoints[0]).toMatchObject({ step: 'delivered', attemptCount: 2, lastStatus: 200 });
  });

  it('a type first carried by a later entry is found by type, also in an endpoint’s list', () => {
    const { store } = openStore();
    const { type: _, ...untyped } = entry({ eventId: 'e', at: at(1), step: 'retry-scheduled', status: 500 });
    store.apply([untyped]);
    expect(store.getMessage('acme', 'e')?.type).toBeNull();
    store.apply([entry({ eventId: 'e', at: at(2), attempt: 2, type: 'order.paid' })]);
    const byType = { tenant: 'acme', limit: 10, types: ['order.paid'] };
    expect(store.listMessages(byType).messages.map((m) => m.eventId)).toEqual(['e']);
    expect(
      store.listMessages({ ...byType, subscribers: ['orders-hook'] }).messages.map((m) => m.eventId),
    ).toEqual(['e']);
  });

  it('filtered by every endpoint is filtered; filtered by one and delivered by another is delivered', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'none', at: at(1), step: 'filtered', attempt: 0 }),
      entry({ eventId: 'none', at: at(1), step: 'filtered', attempt: 0, subscriber: 'audit-hook' }),
      entry({ eventId: 'one', at: at(2), step: 'filtered', attempt: 0 }),
      entry({ eventId: 'one', at: at(2), subscriber: 'audit-hook' }),
    ]);
    expect(store.getMessage('acme', 'none')?.state).toBe('filtered');
    expect(store.getMessage('acme', 'one')?.state).toBe('delivered');
    expect(store.getMessage('acme', 'one')?.endpoints.map((e) => e.attemptCount)).toEqual([1, 0]);
  });
});

describe('getMessage', () => {
  it('gives every attempt of each endpoint, oldest first, with status, latency and excerpt', () => {
    const { store } = openStore();
    const origin = { topic: 'hookstream.events', partition: 2, offset: '41' };
    store.apply([
      entry({
        eventId: 'e',
        at: at(1),
        step: 'retry-scheduled',
        status: 500,
        durationMs: 81.5,
        excerpt: '{"error":"db down"}',
        outcome: 'http-500',
        tier: 1,
        dueAt: at(2),
        origin,
      }),
      entry({ eventId: 'e', at: at(2), attempt: 2, excerpt: 'ok', origin }),
    ]);
    const message = store.getMessage('acme', 'e');
    expect(message?.endpoints).toHaveLength(1);
    const attempts = message?.endpoints[0]?.attempts ?? [];
    expect(attempts.map((a) => [a.attempt, a.step, a.status, a.durationMs, a.excerpt])).toEqual([
      [1, 'retry-scheduled', 500, 81.5, '{"error":"db down"}'],
      [2, 'delivered', 200, 12, 'ok'],
    ]);
    expect(attempts[0]).toMatchObject({ at: at(1), tier: 1, dueAt: at(2), outcome: 'http-500', origin });
    expect(attempts[1]?.source.topic).toBe('hookstream.events');
    expect(message?.endpoints[0]?.truncated).toBe(false);
  });

  it('shows the newest attempts of a long retry chain and says older ones were left out', () => {
    const { store } = openStore();
    const count = MAX_ATTEMPTS_PER_ENDPOINT + 5;
    store.apply(
      Array.from({ length: count }, (_, i) =>
        entry({ eventId: 'long', at: at(i), attempt: i + 1, step: 'retry-scheduled', status: 503 }),
      ),
    );
    const endpoint = store.getMessage('acme', 'long')?.endpoints[0];
    expect(endpoint?.attemptCount).toBe(count);
    expect(endpoint?.truncated).toBe(true);
    expect(endpoint?.attempts).toHaveLength(MAX_ATTEMPTS_PER_ENDPOINT);
    expect(endpoint?.attempts[0]?.attempt).toBe(6);
    expect(endpoint?.attempts.at(-1)?.attempt).toBe(count);
  });

  it('is null for another tenant’s event, an unknown one, and one none of the given endpoints had', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'theirs', at: at(1), tenant: 'globex' }),
      entry({ eventId: 'mine', at: at(1) }),
    ]);
    expect(store.getMessage('acme', 'theirs')).toBeNull();
    expect(store.getMessage('acme', 'nowhere')).toBeNull();
    expect(store.getMessage('acme', 'mine', ['audit-hook'])).toBeNull();
    expect(store.getMessage('acme', 'mine', ['orders-hook'])?.eventId).toBe('mine');
    expect(store.getMessage('globex', 'theirs')?.eventId).toBe('theirs');
  });

  it('keeps each tenant’s copy apart when two tenants use the same event id', () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'same', at: at(1), tenant: 'globex', step: 'dead-lettered', status: 500 }),
      entry({ eventId: 'same', at: at(2) }),
    ]);
    expect(store.getMessage('acme', 'same')).toMatchObject({ state: 'delivered', firstAt: at(2) });
    expect(store.getMessage('globex', 'same')).toMatchObject({ state: 'failed', firstAt: at(1) });
  });
});

describe('messageOrigin', () => {
  it("is the events-topic record the tenant's message came from, whichever step names it", () => {
    const { store } = openStore();
    const events = { topic: 'hookstream.events', partition: 2, offset: '41' };
    const tier = { topic: 'hookstream.sub.orders-hook.retry.1', partition: 0, offset: '5' };
    store.apply([
      entry({ eventId: 'filtered', at: at(1), step: 'filtered', attempt: 0 }),
      entry({ eventId: 'retried', at: at(1), step: 'retry-scheduled', origin: events }),
      entry({ eventId: 'retried', at: at(2), source: tier, origin: events }),
      entry({ eventId: 'retried', at: at(2), tenant: 'globex', origin: { ...events, offset: '42' } }),
    ]);
    expect(store.messageOrigin('acme', 'retried')).toEqual(events);
    expect(store.messageOrigin('globex', 'retried')).toEqual({ ...events, offset: '42' });
    expect(store.messageOrigin('acme', 'filtered')).toBeNull();
    expect(store.messageOrigin('acme', 'nowhere')).toBeNull();
    expect(() => store.messageOrigin('acme', 'not an id')).toThrow(/letters, digits/);
  });
});

describe('apply', () => {
  it('is idempotent: the same entries again change nothing', () => {
    const { store } = openStore();
    const entries = [
      entry({ eventId: 'e', at: at(1), step: 'retry-scheduled', status: 503 }),
      entry({ eventId: 'e', at: at(2), attempt: 2 }),
    ];
    expect(store.apply(entries)).toEqual({ applied: 2, duplicates: 0, untenanted: 0 });
    const before = store.getMessage('acme', 'e');
    expect(store.apply(entries)).toEqual({ applied: 0, duplicates: 2, untenanted: 0 });
    expect(store.getMessage('acme', 'e')).toEqual(before);
    expect(store.stats()).toMatchObject({ messages: 1, endpointStates: 1, attempts: 2 });
  });

  it('keeps no entry without a tenant', () => {
    const { store } = openStore();
    const { tenant: _, ...untenanted } = entry({ eventId: 'e', at: at(1) });
    expect(store.apply([untenanted])).toEqual({ applied: 0, duplicates: 0, untenanted: 1 });
    expect(store.stats().messages).toBe(0);
  });

  it("is held by one process at a time: a second opening is refused at once, the first one's close frees it", () => {
    const { store, path } = openStore();
    const started = performance.now();
    expect(() => reopen(path)).toThrow(expect.objectContaining({ code: 'STORE_IN_USE', canRetry: false }));
    // Refused, not made to wait: a wait would be spent on the event loop.
    expect(performance.now() - started).toBeLessThan(1000);
    store.close();
    const again = reopen(path);
    expect(again.positions('log')).toEqual(new Map());
  });

  it('stores positions with the rows, and a reopened store resumes from them', () => {
    const { store, path } = openStore();
    store.apply(
      [entry({ eventId: 'e', at: at(1) })],
      [
        { topic: 'log', partition: 0, nextOffset: '7' },
        { topic: 'log', partition: 3, nextOffset: '12' },
      ],
    );
    store.apply([], [{ topic: 'log', partition: 0, nextOffset: '9' }]);
    store.close();
    const again = reopen(path);
    expect(again.positions('log')).toEqual(
      new Map([
        [0, '9'],
        [3, '12'],
      ]),
    );
    expect(again.positions('other')).toEqual(new Map());
    expect(again.getMessage('acme', 'e')?.eventId).toBe('e');
  });

  it('a failing batch stores neither its rows nor its positions', () => {
    const { store } = openStore();
    const bad = { ...entry({ eventId: 'e2', at: at(2) }), at: 'not a time' };
    expect(() =>
      store.apply(
        [entry({ eventId: 'e1', at: at(1) }), bad],
        [{ topic: 'log', partition: 0, nextOffset: '5' }],
      ),
    ).toThrow();
    expect(store.stats().messages).toBe(0);
    expect(store.positions('log')).toEqual(new Map());
  });
});

describe('prune and deleteTenant', () => {
  it('prune removes messages whose last step is older than the retention, in batches', async () => {
    const { store } = openStore();
    const now = Date.parse(at(2000));
    store.apply(Array.from({ length: 1200 }, (_, i) => entry({ eventId: `old${i}`, at: at(i % 10) })));
    // Started long ago, but its latest step is recent: kept.
    store.apply([
      entry({ eventId: 'old5', at: at(1990), attempt: 2 }),
      entry({ eventId: 'new', at: at(1995) }),
    ]);
    expect(await store.prune(60 * 60_000, now)).toBe(1199);
    expect(store.listMessages({ tenant: 'acme', limit: 10 }).messages.map((m) => m.eventId)).toEqual([
      'new',
      'old5',
    ]);
    expect(store.stats()).toMatchObject({ messages: 2, endpointStates: 2, attempts: 3 });
  });

  it('deleteTenant removes every row of the tenant and no other', async () => {
    const { store } = openStore();
    store.apply([
      ...Array.from({ length: 700 }, (_, i) => entry({ eventId: `a${i}`, at: at(i) })),
      entry({ eventId: 'g', at: at(1), tenant: 'globex' }),
    ]);
    expect(await store.deleteTenant('acme')).toBe(700);
    expect(store.listMessages({ tenant: 'acme', limit: 10 }).messages).toEqual([]);
    expect(store.getMessage('acme', 'a1')).toBeNull();
    expect(store.getMessage('globex', 'g')?.eventId).toBe('g');
    expect(store.stats()).toMatchObject({ messages: 1, endpointStates: 1, attempts: 1 });
  });
});

describe('stats', () => {
  it('reports the file and the configured cache bound', () => {
    const { store } = openStore();
    store.apply([entry({ eventId: 'e', at: at(1) })]);
    const stats = store.stats();
    expect(stats.cacheBytes).toBe(2 * 1024 * 1024);
    expect(stats.fileBytes).toBeGreaterThan(0);
  });
});

describe('erase', () => {
  it('removes a tenant’s messages begun by then, never indexes their entries again, and keeps later ones', async () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'old', at: at(1) }),
      entry({ eventId: 'other', at: at(1), tenant: 'globex' }),
    ]);
    expect(await store.erase('acme', at(2))).toBe(1);
    // The attempt log still holds the old entry: read again (a new index), it stays out.
    store.apply([entry({ eventId: 'old', at: at(1) }), entry({ eventId: 'new', at: at(3) })]);
    expect(store.listMessages({ tenant: 'acme', limit: 10 }).messages.map((m) => m.eventId)).toEqual(['new']);
    expect(store.listMessages({ tenant: 'globex', limit: 10 }).messages).toHaveLength(1);
    // Learned again at a restart, the erasure leaves what came after it.
    expect(await store.erase('acme', at(2))).toBe(0);
    expect(store.getMessage('acme', 'new')).not.toBeNull();
  });
});
