import { CE_HEADER, type SubscriberDefinition } from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import type { DeliveryHealth } from '../src/endpoint-health.ts';
import { SubscriberDelivery } from '../src/subscriber-delivery.ts';
import {
  eventRecord,
  FakeClient,
  FakeDecoder,
  FakeLimiter,
  FakeObserver,
  FakeRouter,
  response,
  tierRecord,
  topology,
} from './fakes.ts';

/** Counts what the breaker is told: a batch request is one attempt to it. */
class CountingHealth implements DeliveryHealth {
  readonly phase = 'closed' as const;
  readonly told: string[] = [];
  async admit(signal: AbortSignal) {
    return signal.aborted ? ('aborted' as const) : ('go' as const);
  }
  attempted(_classification: unknown, _probe: boolean, eventId: string) {
    this.told.push(eventId);
    return 'as-usual' as const;
  }
}

function harness(
  batch: Partial<NonNullable<SubscriberDefinition['batch']>> = {},
  more: Partial<SubscriberDefinition> = {},
) {
  const fakes = {
    decoder: new FakeDecoder(),
    client: new FakeClient(),
    limiter: new FakeLimiter(),
    router: new FakeRouter(),
    observer: new FakeObserver(),
    health: new CountingHealth(),
  };
  const delivery = new SubscriberDelivery({
    topology: topology({
      batch: { maxEvents: 10, maxBytes: 64 * 1024, maxWaitMs: 0, groupBy: 'tenant', ...batch },
      ...more,
    }),
    ...fakes,
    random: () => 0.5,
  });
  /** Handles the records at once, as the consumer's window does, and waits for all of them. */
  const handleAll = (records: readonly ConsumedRecord[]) =>
    Promise.all(records.map((r) => delivery.handle(r, new AbortController().signal)));
  const handle = (record: ConsumedRecord, signal: AbortSignal) => delivery.handle(record, signal);
  const requests = () =>
    fakes.client.sent.map((s) => ({
      webhookId: s.eventId,
      events: (JSON.parse(s.body) as { events: { event_id: string; attempt: number; tenant?: string }[] })
        .events,
    }));
  return { ...fakes, handle, handleAll, requests };
}

const ofTenant = (tenant: string) => eventRecord({ [CE_HEADER.tenant]: tenant });

describe('SubscriberDelivery with batch', () => {
  it('one request per tenant, each member as it would be sent alone, under its own webhook-id', async () => {
    const h = harness();
    const records = [ofTenant('acme'), ofTenant('globex'), ofTenant('acme')];
    expect(await h.handleAll(records)).toEqual(['settled', 'settled', 'settled']);
    const requests = h.requests();
    expect(requests).toHaveLength(2);
    const byTenant = new Map(requests.map((r) => [r.events[0]?.tenant, r]));
    expect(byTenant.get('acme')?.events.map((e) => e.event_id)).toEqual([
      records[0]?.headers[CE_HEADER.id],
      records[2]?.headers[CE_HEADER.id],
    ]);
    expect(byTenant.get('globex')?.events).toHaveLength(1);
    for (const r of requests) {
      expect(r.webhookId).toMatch(/^batch_[0-9a-f-]{36}$/);
      for (const e of r.events) expect(e).toMatchObject({ attempt: 1, subscription_id: 'billing' });
    }
    expect(h.observer.steps.map((s) => s.step.kind)).toEqual(['delivered', 'delivered', 'delivered']);
    // The breaker heard of two requests (by their first event), not three events.
    expect(h.health.told).toEqual(requests.map((r) => r.events[0]?.event_id));
  });

  it('members go in events-topic order, whatever order they joined in', async () => {
    const h = harness();
    const records = [eventRecord(), eventRecord(), eventRecord()];
    await h.handleAll([...records].reverse());
    expect(h.requests()[0]?.events.map((e) => e.event_id)).toEqual(
      records.map((r) => r.headers[CE_HEADER.id]),
    );
  });

  it('a retryable answer sends every member on its own retry path, each with its own attempt count', async () => {
    const h = harness();
    h.client.reports.push(response(503));
    const fresh = eventRecord();
    const retried = tierRecord(1);
    await h.handleAll([fresh, retried]);
    const [request] = h.requests();
    expect(request?.events.map((e) => e.attempt).sort()).toEqual([1, 2]);
    expect(h.router.retries).toHaveLength(2);
    const steps = h.observer.steps.map((s) => s.step);
    expect(steps.map((s) => s.kind)).toEqual(['retry-scheduled', 'retry-scheduled']);
    expect(steps.map((s) => (s.kind === 'retry-scheduled' ? s.attempt.number : 0)).sort()).toEqual([1, 2]);
  });

  it('a terminal answer dead-letters every member with the batch evidence', async () => {
    const h = harness();
    h.client.reports.push(response(400));
    await h.handleAll([eventRecord(), eventRecord()]);
    expect(h.router.deadLetters).toHaveLength(2);
    for (const d of h.router.deadLetters) expect(d.trail).toMatchObject({ attempts: 1, excerpt: 'body 400' });
    // The batch's answer is each member's, for its attempt log entry; its batch id says so.
    for (const { step } of h.observer.steps)
      expect(step).toMatchObject({
        kind: 'dead-lettered',
        attempt: { excerpt: 'body 400', batchId: expect.any(String) },
      });
  });

  it('a 413 splits the batch in halves before it counts as a failure', async () => {
    const h = harness();
    h.client.reports.push(response(413));
    const records = [eventRecord(), eventRecord(), eventRecord(), eventRecord()];
    await h.handleAll(records);
    const sizes = h.requests().map((r) => r.events.length);
    expect(sizes).toEqual([4, 2, 2]);
    // The halves carry the same attempt: the 413 did not count.
    for (const r of h.requests()) for (const e of r.events) expect(e.attempt).toBe(1);
    expect(h.observer.steps.map((s) => s.step.kind)).toEqual([
      'delivered',
      'delivered',
      'delivered',
      'delivered',
    ]);
    expect(h.health.told).toHaveLength(2);
  });

  it('a 413 for one event alone is its answer', async () => {
    const h = harness();
    h.client.reports.push(response(413));
    await h.handleAll([eventRecord()]);
    expect(h.router.deadLetters).toHaveLength(1);
  });

  it('groupBy a data field: events with different values never share a request', async () => {
    const h = harness({ groupBy: '/shipment/id' });
    h.decoder.results.push(
      { kind: 'ok', data: { shipment: { id: 'shp_1' } } },
      { kind: 'ok', data: { shipment: { id: 'shp_2' } } },
      { kind: 'ok', data: { shipment: { id: 'shp_1' } } },
      { kind: 'ok', data: { other: true } },
    );
    await h.handleAll([eventRecord(), eventRecord(), eventRecord(), eventRecord()]);
    expect(
      h
        .requests()
        .map((r) => r.events.length)
        .sort(),
    ).toEqual([1, 1, 2]);
  });

  it("an event's last attempt goes alone, still in batch form; earlier retries are batched again", async () => {
    // fakes.ts: maxAttempts 3. Two on their last attempt, two on their second, one fresh.
    const h = harness();
    await h.handleAll([tierRecord(2), tierRecord(2), tierRecord(1), tierRecord(1), eventRecord()]);
    const requests = h.requests().map((r) => r.events.map((e) => e.attempt).sort());
    expect(requests.sort()).toEqual([[1, 2, 2], [3], [3]]);
    for (const r of h.requests()) expect(r.webhookId).toMatch(/^batch_/);
  });

  it('groupBy "key" never puts two tenants in one batch', async () => {
    const h = harness({ groupBy: 'key' });
    // eventRecord gives every record the key k1.
    await h.handleAll([ofTenant('acme'), ofTenant('globex'), ofTenant('acme')]);
    expect(h.requests().map((r) => r.events.map((e) => e.tenant))).toEqual(
      expect.arrayContaining([['acme', 'acme'], ['globex']]),
    );
    expect(h.requests()).toHaveLength(2);
  });

  it('sends no empty request when every member left while the batch waited for its turn', async () => {
    const h = harness({ maxWaitMs: 0 });
    const stop = new AbortController();
    // The limiter runs the job only after the members were stopped, as a capped limiter may.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.limiter.schedule = async <T>(job: () => Promise<T>) => {
      await gate;
      return job();
    };
    const result = h.handle(eventRecord(), stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    release();
    expect(await result).toBe('abandoned');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(h.client.sent).toHaveLength(0);
    expect(h.health.told).toHaveLength(0);
  });

  it('a stop before the request went out abandons the member, and the rest still go', async () => {
    const h = harness({ maxWaitMs: 50 });
    const stop = new AbortController();
    const results = Promise.all([
      h.handle(eventRecord(), new AbortController().signal),
      h.handle(eventRecord(), stop.signal),
    ]);
    // Both are in the open batch once decoded; the second is stopped before it is sent.
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    expect(await results).toEqual(['settled', 'abandoned']);
    expect(h.requests().map((r) => r.events.length)).toEqual([1]);
  });
});
