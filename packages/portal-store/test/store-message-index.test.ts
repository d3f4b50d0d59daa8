import { ManagementError } from '@hookstream/management';
import { describe, expect, it } from 'vitest';
import { storeMessageIndex } from '../src/index.ts';
import { at, entry, openStore } from './fixtures.ts';

describe('storeMessageIndex', () => {
  it('answers in the API’s shape: each endpoint’s last step, and every attempt in time order', async () => {
    const { store } = openStore();
    store.apply([
      entry({ eventId: 'e1', at: at(1), step: 'retry-scheduled', attempt: 1, status: 500, excerpt: 'down' }),
      entry({ eventId: 'e1', at: at(2), subscriber: 'audit-hook', attempt: 1 }),
      entry({ eventId: 'e1', at: at(3), step: 'delivered', attempt: 2, status: 200 }),
    ]);
    const index = storeMessageIndex(store);
    const page = await index.list({ tenant: 'acme', limit: 10 });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({
      eventId: 'e1',
      tenant: 'acme',
      type: 'order.created',
      state: 'delivered',
    });
    expect(page.items[0]?.endpoints.map((e) => [e.subscriber, e.step, e.attempts])).toEqual(
      expect.arrayContaining([
        ['orders-hook', 'delivered', 2],
        ['audit-hook', 'delivered', 1],
      ]),
    );
    const one = await index.get('acme', 'e1');
    expect(one?.attempts.map((a) => [a.subscriber, a.step, a.status, a.excerpt])).toEqual([
      ['orders-hook', 'retry-scheduled', 500, 'down'],
      ['audit-hook', 'delivered', 200, undefined],
      ['orders-hook', 'delivered', 200, undefined],
    ]);
    expect(await index.get('globex', 'e1')).toBeNull();
  });

  it("names a message's origin record for its tenant only, and refuses a malformed id as the caller's error", async () => {
    const { store } = openStore();
    const origin = { topic: 'hookstream.events', partition: 1, offset: '9' };
    store.apply([entry({ eventId: 'e1', at: at(1), origin })]);
    const index = storeMessageIndex(store);
    expect(await index.origin('acme', 'e1')).toEqual(origin);
    expect(await index.origin('globex', 'e1')).toBeNull();
    const err = await index.origin('acme', 'no spaces').catch((e: unknown) => e);
    expect((err as ManagementError).code).toBe('invalid_request');
  });

  it('turns a query the store refuses into the caller’s invalid_request', async () => {
    const { store } = openStore();
    const index = storeMessageIndex(store);
    const many = Array.from({ length: 201 }, (_, i) => `hook-${i}`);
    const err = await index.list({ tenant: 'acme', subscribers: many, limit: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagementError);
    expect((err as ManagementError).code).toBe('invalid_request');
  });
});
