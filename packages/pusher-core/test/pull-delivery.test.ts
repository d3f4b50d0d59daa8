import { CE_HEADER, type SubscriberDefinition } from '@hookstream/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeaseBook } from '../src/lease-book.ts';
import { PullDelivery } from '../src/pull-delivery.ts';
import { eventRecord, FakeDecoder, FakeObserver, FakeRouter, topology } from './fakes.ts';

function harness(definition: Partial<SubscriberDefinition> = {}) {
  const book = new LeaseBook();
  const router = new FakeRouter();
  const observer = new FakeObserver();
  const delivery = new PullDelivery({
    topology: topology({ url: undefined, mode: 'pull', ...definition }),
    decoder: new FakeDecoder(),
    router,
    observer,
    book,
    random: () => 0.5,
  });
  /** Waits until the book holds `n` events (the handler offers after decoding). */
  const offered = async (n = 1) => {
    while (book.available < n) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  return { book, router, observer, delivery, offered };
}

describe('PullDelivery', () => {
  afterEach(() => vi.useRealTimers());

  it('an acked event is delivered on the attempt its lease made; the body is as push would send it', async () => {
    const h = harness();
    const result = h.delivery.handle(eventRecord(), new AbortController().signal);
    await h.offered();
    const lease = h.book.lease(10, 30_000);
    const [body] = (lease?.bodies ?? []).map((b) => JSON.parse(b));
    expect(body).toMatchObject({ subscription_id: 'billing', attempt: 1, type: 'shipment.updated' });
    expect(h.book.ack(lease?.id ?? '', {})).toEqual({ ok: true, count: 1 });
    expect(await result).toBe('settled');
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'delivered', attempt: { number: 1 } });
    expect(h.router.retries).toHaveLength(0);
  });

  it('an expired lease offers the event again, its attempt counted up', async () => {
    const h = harness();
    const result = h.delivery.handle(eventRecord(), new AbortController().signal);
    await h.offered();
    h.book.lease(10, 5);
    await h.offered();
    const second = h.book.lease(10, 30_000);
    expect((second?.bodies ?? []).map((b) => JSON.parse(b).attempt)).toEqual([2]);
    h.book.ack(second?.id ?? '', {});
    expect(await result).toBe('settled');
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'delivered', attempt: { number: 2 } });
  });

  it('a nack with a delay sends the event down the retry schedule, not before the delay', async () => {
    const h = harness();
    const result = h.delivery.handle(eventRecord(), new AbortController().signal);
    await h.offered();
    const lease = h.book.lease(10, 30_000);
    const before = Date.now();
    h.book.nack(lease?.id ?? '', {}, 45_000);
    expect(await result).toBe('settled');
    const step = h.observer.steps.at(-1)?.step;
    expect(step).toMatchObject({ kind: 'retry-scheduled', attempt: { number: 1 } });
    if (step?.kind !== 'retry-scheduled') throw new Error('a retry');
    expect(step.dueAtMs).toBeGreaterThanOrEqual(before + 45_000);
    expect(h.router.retries).toHaveLength(1);
  });

  it('a lease that expires on the last attempt dead-letters the event as exhausted', async () => {
    // fakes.ts: maxAttempts 3.
    const h = harness();
    const result = h.delivery.handle(eventRecord(), new AbortController().signal);
    for (let i = 0; i < 3; i++) {
      await h.offered();
      h.book.lease(10, 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await result).toBe('settled');
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'dead-lettered', reason: 'exhausted' });
    expect(h.router.deadLetters).toHaveLength(1);
  });

  it('an expired lease offers an old event again at once: no retry delay counts against its age', async () => {
    // 45 minutes old, an hour's ceiling: the schedule's 30-minute retry would pass it, but none is waited.
    const h = harness({
      retry: { delaysMs: [1000, 1_800_000], maxAttempts: 5, maxAgeMs: 3_600_000, jitter: 0 },
    });
    const occurred = new Date(Date.now() - 45 * 60_000).toISOString();
    const result = h.delivery.handle(
      eventRecord({ [CE_HEADER.time]: occurred }),
      new AbortController().signal,
    );
    for (let i = 0; i < 2; i++) {
      await h.offered();
      h.book.lease(10, 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await h.offered();
    const third = h.book.lease(10, 30_000);
    expect((third?.bodies ?? []).map((b) => JSON.parse(b).attempt)).toEqual([3]);
    h.book.ack(third?.id ?? '', {});
    expect(await result).toBe('settled');
    expect(h.router.deadLetters).toHaveLength(0);
  });

  it('a stop takes the event out of the book, waiting or leased: abandoned, read again later', async () => {
    const h = harness();
    const stop = new AbortController();
    const result = h.delivery.handle(eventRecord(), stop.signal);
    await h.offered();
    const lease = h.book.lease(10, 30_000);
    stop.abort();
    expect(await result).toBe('abandoned');
    expect(h.book.ack(lease?.id ?? '', {})).toMatchObject({ ok: false });
  });
});
