import {
  BreakerSettings,
  CE_HEADER,
  HS_HEADER,
  type SubscriberDefinition,
  TRACEPARENT_HEADER,
} from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it, vi } from 'vitest';
import { type DisableVerdict, EndpointHealth } from '../src/endpoint-health.ts';
import type { DecodeResult } from '../src/event-decoder.ts';
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

function harness(definition: Partial<SubscriberDefinition> = {}) {
  const fakes = {
    decoder: new FakeDecoder(),
    client: new FakeClient(),
    limiter: new FakeLimiter(),
    router: new FakeRouter(),
    observer: new FakeObserver(),
  };
  const delivery = new SubscriberDelivery({
    topology: topology(definition),
    ...fakes,
    random: () => 0.5,
  });
  const handle = (record: ConsumedRecord, signal = new AbortController().signal) =>
    delivery.handle(record, signal);
  const lastStep = () => fakes.observer.steps.at(-1)?.step;
  return { ...fakes, handle, lastStep };
}

describe('SubscriberDelivery: one record to its step', () => {
  it('a 2xx settles the record as delivered: one request, the body carries the delivery fields', async () => {
    const h = harness();
    const record = eventRecord();
    expect(await h.handle(record)).toBe('settled');
    expect(h.lastStep()).toMatchObject({ kind: 'delivered', attempt: { number: 1 } });
    expect(h.client.sent).toHaveLength(1);
    const body = JSON.parse(h.client.sent[0]?.body ?? '{}');
    expect(body).toMatchObject({
      shipment: { id: 'shp_1' },
      event_id: record.headers[CE_HEADER.id],
      subscription_id: 'billing',
      attempt: 1,
      type: 'shipment.updated',
    });
    expect(h.router.retries).toHaveLength(0);
    expect(h.router.deadLetters).toHaveLength(0);
    expect(h.observer.attempts).toEqual([{ outcomeClass: 'ack', status: 204 }]);
    expect(h.observer.waits).toBe(1);
  });

  it("the body names the event's tenant (ce_tenant) only when it has one", async () => {
    const h = harness();
    await h.handle(eventRecord({ [CE_HEADER.tenant]: 'acme' }));
    await h.handle(eventRecord());
    const [withTenant, without] = h.client.sent.map((r) => JSON.parse(r.body));
    expect(withTenant).toMatchObject({ type: 'shipment.updated', tenant: 'acme' });
    expect(Object.keys(withTenant).at(-1)).toBe('tenant');
    expect(without).not.toHaveProperty('tenant');
  });

  it('a type the subscriber does not want is filtered before decoding, with no request', async () => {
    const h = harness({ eventTypes: ['key.revoked'] });
    expect(await h.handle(eventRecord())).toBe('settled');
    expect(h.lastStep()).toEqual({ kind: 'filtered' });
    expect(h.decoder.calls).toBe(0);
    expect(h.client.sent).toHaveLength(0);
  });

  it("a tenant's subscriber gets its tenant's events; others', and those without one, are filtered before decoding", async () => {
    const h = harness({ tenant: 'acme' });
    expect(await h.handle(eventRecord({ [CE_HEADER.tenant]: 'globex' }))).toBe('settled');
    expect(h.lastStep()).toEqual({ kind: 'filtered' });
    expect(await h.handle(eventRecord())).toBe('settled');
    expect(h.lastStep()).toEqual({ kind: 'filtered' });
    // Even a record it could not read otherwise: another tenant's is none of its business.
    expect(await h.handle(eventRecord({ [CE_HEADER.tenant]: 'globex', [CE_HEADER.type]: '' }))).toBe(
      'settled',
    );
    expect(h.lastStep()).toEqual({ kind: 'filtered' });
    expect(h.decoder.calls).toBe(0);
    expect(h.client.sent).toHaveLength(0);
    expect(await h.handle(eventRecord({ [CE_HEADER.tenant]: 'acme' }))).toBe('settled');
    expect(h.lastStep()).toMatchObject({ kind: 'delivered' });
    expect(h.client.sent).toHaveLength(1);
  });

  it("a retry of another tenant's record is filtered as its original would have been", async () => {
    const h = harness({ tenant: 'acme' });
    const retry = tierRecord(1);
    expect(await h.handle({ ...retry, headers: { ...retry.headers, [CE_HEADER.tenant]: 'globex' } })).toBe(
      'settled',
    );
    expect(h.lastStep()).toEqual({ kind: 'filtered' });
    expect(await h.handle({ ...retry, headers: { ...retry.headers, [CE_HEADER.tenant]: 'acme' } })).toBe(
      'settled',
    );
    expect(h.lastStep()).toMatchObject({ kind: 'delivered', attempt: { number: 2 } });
  });

  it('a subscriber without a tenant gets events with a tenant and without', async () => {
    const h = harness();
    expect(await h.handle(eventRecord({ [CE_HEADER.tenant]: 'acme' }))).toBe('settled');
    expect(await h.handle(eventRecord())).toBe('settled');
    expect(h.client.sent).toHaveLength(2);
  });

  it('a notice type on the events topic is a forgery: passed over, never decoded or sent', async () => {
    const h = harness();
    expect(await h.handle(eventRecord({ [CE_HEADER.type]: 'subscriber.disabled' }))).toBe('settled');
    expect(h.lastStep()).toEqual({ kind: 'filtered' });
    expect(h.decoder.calls).toBe(0);
    expect(h.client.sent).toHaveLength(0);
  });

  it("a notice from the notices topic is delivered once: other replicas' copies (same id) are passed over", async () => {
    const h = harness();
    const notices = 'hookstream.notices.events-unit';
    const notice = { [CE_HEADER.type]: 'subscriber.disabled', [CE_HEADER.id]: 'subscriber.disabled:crm:1' };
    const first = eventRecord(notice, notices);
    expect(await h.handle(first)).toBe('settled');
    expect(await h.handle(eventRecord(notice, notices))).toBe('settled');
    expect(h.lastStep()).toEqual({ kind: 'filtered' });
    // The first copy read again (a rejoin re-reads from the ledger) is still delivered.
    expect(await h.handle(first)).toBe('settled');
    expect(h.client.sent.map((s) => s.eventId)).toEqual([
      'subscriber.disabled:crm:1',
      'subscriber.disabled:crm:1',
    ]);
    // Ordinary types do not come from the notices topic.
    expect(await h.handle(eventRecord({}, notices))).toBe('settled');
    expect(h.client.sent).toHaveLength(2);
  });

  it('a subscriber without notice types does not read the notices topic', () => {
    expect(topology({ eventTypes: ['shipment.updated'] }).noticesTopic).toBeNull();
    expect(topology({ eventTypes: ['*'] }).noticesTopic).toBe('hookstream.notices.events-unit');
    // A tenant's subscriber reads the notices topic too; its tenant filter keeps its own tenant's.
    expect(topology({ eventTypes: ['*'], tenant: 'acme' }).noticesTopic).toBe(
      'hookstream.notices.events-unit',
    );
  });

  it.each([
    { status: 500, tier: 1, delay: 1000 },
    { status: 408, tier: 1, delay: 1000 },
    { status: 302, tier: 1, delay: 1000 },
  ])(
    'a $status on the first attempt goes to tier $tier, due after $delay ms',
    async ({ status, tier, delay }) => {
      const h = harness();
      h.client.reports.push(response(status));
      const before = Date.now();
      expect(await h.handle(eventRecord())).toBe('settled');
      expect(h.lastStep()).toMatchObject({ kind: 'retry-scheduled', tier, attempt: { number: 1 } });
      const [routed] = h.router.retries;
      expect(routed?.decision.tier).toBe(tier);
      expect(routed?.dueAtMs).toBeGreaterThanOrEqual(before + delay);
      expect(routed?.trail).toMatchObject({ attempts: 1, excerpt: `body ${status}`, subscriber: 'billing' });
    },
  );

  it.each([400, 401, 404, 410, 422])('a %i dead-letters at once as terminal', async (status) => {
    const h = harness();
    h.client.reports.push(response(status));
    expect(await h.handle(eventRecord())).toBe('settled');
    expect(h.lastStep()).toMatchObject({ kind: 'dead-lettered', reason: 'terminal', attempt: { number: 1 } });
    expect(h.router.deadLetters.map((d) => d.reason)).toEqual(['terminal']);
    expect(h.router.retries).toHaveLength(0);
  });

  it("an attempt's step carries the answer's excerpt; one without a body or without an answer none", async () => {
    const h = harness();
    h.client.reports.push(
      response(503),
      { ...response(204), excerpt: '' },
      {
        kind: 'connection-error',
        code: 'ECONNREFUSED',
        durationMs: 1,
        excerpt: '',
      },
    );
    await h.handle(eventRecord());
    await h.handle(eventRecord());
    await h.handle(eventRecord());
    const attempts = h.observer.steps.map(({ step }) => ('attempt' in step ? step.attempt : undefined));
    expect(attempts.map((a) => a?.excerpt)).toEqual(['body 503', undefined, undefined]);
    expect(attempts.map((a) => a !== undefined && 'excerpt' in a)).toEqual([true, false, false]);
  });

  it('a failure on the last allowed attempt dead-letters as exhausted, keeping the origin', async () => {
    const h = harness();
    h.client.reports.push(response(503));
    expect(await h.handle(tierRecord(2))).toBe('settled');
    const [dead] = h.router.deadLetters;
    expect(dead?.reason).toBe('exhausted');
    expect(dead?.trail).toMatchObject({
      attempts: 3,
      origin: { topic: 'events-unit', partition: 2, offset: '77' },
    });
    expect(h.client.sent[0]?.body).toContain('"attempt":3');
  });

  it('a tier record continues the attempt count from its headers', async () => {
    const h = harness();
    expect(await h.handle(tierRecord(1))).toBe('settled');
    expect(h.lastStep()).toMatchObject({ kind: 'delivered', attempt: { number: 2 } });
    expect(h.observer.steps[0]?.ctx.origin).toEqual({ topic: 'events-unit', partition: 2, offset: '77' });
  });

  it('an event older than the age ceiling is dead-lettered as expired without a request', async () => {
    const h = harness();
    const old = eventRecord({ [CE_HEADER.time]: new Date(Date.now() - 2 * 3_600_000).toISOString() });
    expect(await h.handle(old)).toBe('settled');
    expect(h.lastStep()).toMatchObject({ kind: 'dead-lettered', reason: 'expired' });
    expect(h.client.sent).toHaveLength(0);
  });

  it.each<{ name: string; record: () => ConsumedRecord; decoded?: DecodeResult; detail: string }>([
    {
      name: 'undecodable bytes',
      record: () => eventRecord(),
      decoded: { kind: 'poison', detail: 'magic byte 7, expected 0' },
      detail: 'magic byte 7, expected 0',
    },
    {
      name: 'no ce_id header',
      record: () => {
        const r = eventRecord();
        const { [CE_HEADER.id]: _, ...headers } = r.headers;
        return { ...r, headers };
      },
      detail: `missing ${CE_HEADER.id} header`,
    },
    {
      name: 'a 10 KB ce_id',
      record: () => eventRecord({ [CE_HEADER.id]: 'x'.repeat(10_000) }),
      detail: `${CE_HEADER.id} header is not an event id (10000 chars, starting "${'x'.repeat(40)}")`,
    },
    {
      name: 'a ce_id with CR LF',
      record: () => eventRecord({ [CE_HEADER.id]: 'evt\r\nx-injected: 1' }),
      detail: `${CE_HEADER.id} header is not an event id ("evt\\r\\nx-injected: 1")`,
    },
    {
      name: 'a traceparent that is not W3C',
      record: () => eventRecord({ [TRACEPARENT_HEADER]: '00-zz-1\r\n' }),
      detail: `${TRACEPARENT_HEADER} header is not a W3C traceparent ("00-zz-1\\r\\n")`,
    },
    {
      name: 'a ce_type that is not a type name',
      record: () => eventRecord({ [CE_HEADER.type]: 'Shipment Updated!' }),
      detail: `${CE_HEADER.type} header is not an event type name ("Shipment Updated!")`,
    },
    {
      name: 'a ce_time that is not a time',
      record: () => eventRecord({ [CE_HEADER.time]: 'yesterday' }),
      detail: `${CE_HEADER.time} header is not an RFC 3339 time ("yesterday")`,
    },
    {
      name: 'a ce_tenant that is not a tenant name',
      record: () => eventRecord({ [CE_HEADER.tenant]: 'acme corp' }),
      detail: `${CE_HEADER.tenant} header is not a tenant name ("acme corp")`,
    },
    {
      name: 'unreadable retry headers',
      record: () => ({
        ...tierRecord(1),
        headers: { ...tierRecord(1).headers, [HS_HEADER.attempts]: 'lots' },
      }),
      detail: 'unreadable retry headers',
    },
  ])(
    'poison ($name) is dead-lettered with its reason and never sent',
    async ({ record, decoded, detail }) => {
      const h = harness();
      if (decoded) h.decoder.results.push(decoded);
      expect(await h.handle(record())).toBe('settled');
      expect(h.lastStep()).toMatchObject({ kind: 'dead-lettered', reason: 'poison' });
      expect(h.router.deadLetters[0]?.trail).toMatchObject({ attempts: 0, excerpt: detail });
      expect(h.client.sent).toHaveLength(0);
    },
  );

  it('a bad id is not passed on: the poison trail carries no event id and the record is not decoded', async () => {
    const h = harness();
    await h.handle(eventRecord({ [CE_HEADER.id]: 'a'.repeat(201) }));
    expect(h.router.deadLetters[0]?.trail.eventId).toBeNull();
    expect(h.decoder.calls).toBe(0);
  });

  it('a 429 with Retry-After pauses the whole destination and schedules a retry', async () => {
    const h = harness();
    h.client.reports.push(response(429, '7'));
    expect(await h.handle(eventRecord())).toBe('settled');
    expect(h.limiter.pauses).toEqual([7000]);
    expect(h.lastStep()).toMatchObject({ kind: 'retry-scheduled' });
  });

  it('stopped while waiting for the limiter: abandoned, nothing sent, nothing routed', async () => {
    const h = harness();
    h.limiter.refuse = true;
    expect(await h.handle(eventRecord())).toBe('abandoned');
    expect(h.lastStep()).toEqual({ kind: 'abandoned' });
    expect(h.client.sent).toHaveLength(0);
  });

  it('a hand-off the router could not make durable leaves the record unsettled', async () => {
    const h = harness();
    h.client.reports.push(response(500));
    h.router.answer = 'abandoned';
    expect(await h.handle(eventRecord())).toBe('abandoned');
    expect(h.lastStep()).toMatchObject({ kind: 'abandoned', attempt: { number: 1 } });
  });

  it('a registry that cannot be asked keeps the record waiting until stopped, then abandons it', async () => {
    const h = harness();
    h.decoder.results.push({ kind: 'unavailable', detail: 'registry down' });
    const stop = new AbortController();
    const handled = h.handle(eventRecord(), stop.signal);
    await vi.waitFor(() => expect(h.observer.decodeWaits).toHaveLength(1));
    stop.abort();
    expect(await handled).toBe('abandoned');
    expect(h.client.sent).toHaveLength(0);
    expect(h.observer.decodeWaits).toEqual([{ detail: 'registry down', waitMs: 1000 }]);
  });

  it('registry waits back off and each is reported; the record is delivered once it decodes', async () => {
    vi.useFakeTimers();
    try {
      const h = harness();
      for (let i = 0; i < 6; i++) h.decoder.results.push({ kind: 'unavailable', detail: `503 #${i}` });
      let outcome: string | undefined;
      void h.handle(eventRecord()).then((o) => {
        outcome = o;
      });
      // Simulated time only: 200 s is far more than the 78 s of waits the record should take.
      for (let s = 0; s < 200 && outcome === undefined; s++) await vi.advanceTimersByTimeAsync(1000);
      expect(outcome).toBe('settled');
      expect(h.observer.decodeWaits.map((w) => w.waitMs)).toEqual([1000, 2000, 5000, 10_000, 30_000, 30_000]);
      expect(h.lastStep()).toMatchObject({ kind: 'delivered' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('tells the observer exactly once per record, also when the handler throws', async () => {
    const h = harness();
    h.client.send = async () => {
      throw new Error('boom');
    };
    await expect(h.handle(eventRecord())).rejects.toThrow('boom');
    expect(h.observer.steps.map((s) => s.step.kind)).toEqual(['abandoned']);
  });
});

describe('SubscriberDelivery with the endpoint health: breaker and auto-disable', () => {
  function withHealth(breaker: Partial<BreakerSettings>) {
    const definition = { breaker: BreakerSettings.parse(breaker) };
    const disabled: DisableVerdict[] = [];
    const logs: string[] = [];
    const health = new EndpointHealth({
      definition: topology(definition).definition,
      log: (_level, message) => logs.push(message),
      disable: async (verdict) => {
        disabled.push(verdict);
      },
    });
    const fakes = {
      decoder: new FakeDecoder(),
      client: new FakeClient(),
      limiter: new FakeLimiter(),
      router: new FakeRouter(),
      observer: new FakeObserver(),
    };
    const delivery = new SubscriberDelivery({
      topology: topology(definition),
      ...fakes,
      health,
      random: () => 0,
    });
    return { ...fakes, health, disabled, logs, delivery };
  }

  it('an open breaker holds the record in place, no tier; each request it makes counts up, the first success delivers it', async () => {
    const h = withHealth({ consecutiveFailures: 1, probeIntervalMs: 100 });
    h.client.reports.push(response(503), response(503), response(204));
    const started = Date.now();
    expect(await h.delivery.handle(eventRecord(), new AbortController().signal)).toBe('settled');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'delivered', attempt: { number: 3 } });
    // The endpoint saw three requests: dashboards count three attempts of one event, not three events.
    expect(h.client.sent.map((s) => JSON.parse(s.body).attempt)).toEqual([1, 2, 3]);
    expect(h.router.retries).toHaveLength(0);
    expect(h.router.deadLetters).toHaveLength(0);
    expect(h.health.phase).toBe('closed');
    expect(h.logs).toEqual([
      'breaker open',
      'breaker half-open',
      'breaker open',
      'breaker half-open',
      'breaker closed',
    ]);
  });

  it('a tier record held after a failed probe counts up from its headers', async () => {
    const h = withHealth({ consecutiveFailures: 1, probeIntervalMs: 100 });
    h.client.reports.push(response(503), response(204));
    expect(await h.delivery.handle(tierRecord(2), new AbortController().signal)).toBe('settled');
    expect(h.client.sent.map((s) => JSON.parse(s.body).attempt)).toEqual([3, 4]);
  });

  it('stopped while held after its attempt: handed to the tier with that attempt counted, not abandoned to start over', async () => {
    const h = withHealth({ consecutiveFailures: 1, probeIntervalMs: 60_000 });
    h.client.reports.push(response(503));
    const stop = new AbortController();
    const handled = h.delivery.handle(eventRecord(), stop.signal);
    await vi.waitFor(() => expect(h.health.phase).toBe('open'));
    stop.abort();
    expect(await handled).toBe('settled');
    expect(h.client.sent).toHaveLength(1);
    expect(h.router.retries).toHaveLength(1);
    expect(h.router.retries[0]?.trail).toMatchObject({ attempts: 1 });
    expect(h.router.retries[0]?.decision).toMatchObject({ tier: 1, nextAttempt: 2 });
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'retry-scheduled', attempt: { number: 1 } });
  });

  it('stopped while held after its attempt, the hand-off not durable: abandoned (a repeat, never a loss)', async () => {
    const h = withHealth({ consecutiveFailures: 1, probeIntervalMs: 60_000 });
    h.client.reports.push(response(503));
    h.router.answer = 'abandoned';
    const stop = new AbortController();
    const handled = h.delivery.handle(eventRecord(), stop.signal);
    await vi.waitFor(() => expect(h.health.phase).toBe('open'));
    stop.abort();
    expect(await handled).toBe('abandoned');
  });

  it('stopped while held without an attempt: abandoned, nothing sent, nothing routed', async () => {
    const h = withHealth({ consecutiveFailures: 1, probeIntervalMs: 60_000 });
    h.client.reports.push(response(503));
    const first = h.delivery.handle(eventRecord(), new AbortController().signal);
    await vi.waitFor(() => expect(h.health.phase).toBe('open'));
    const stop = new AbortController();
    const held = h.delivery.handle(eventRecord(), stop.signal);
    stop.abort();
    expect(await held).toBe('abandoned');
    expect(h.client.sent).toHaveLength(1);
    expect(h.router.retries).toHaveLength(0);
    void first;
  });

  it('below the threshold a failure walks the retry tiers as before', async () => {
    const h = withHealth({ consecutiveFailures: 2 });
    h.client.reports.push(response(503));
    await h.delivery.handle(eventRecord(), new AbortController().signal);
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'retry-scheduled', tier: 1 });
    expect(h.health.phase).toBe('closed');
  });

  it('a record that outlives its age ceiling while waiting is dead-lettered as expired, not attempted', async () => {
    const h = withHealth({ consecutiveFailures: 1, probeIntervalMs: 60_000 });
    h.client.reports.push(response(503));
    const first = h.delivery.handle(eventRecord(), new AbortController().signal);
    await vi.waitFor(() => expect(h.health.phase).toBe('open'));
    const old = eventRecord({ [CE_HEADER.time]: new Date(Date.now() - 3_600_000 + 150).toISOString() });
    expect(await h.delivery.handle(old, new AbortController().signal)).toBe('settled');
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'dead-lettered', reason: 'expired' });
    expect(h.client.sent).toHaveLength(1);
    void first;
  });

  it('a 410 disables the subscriber at once: the record is left unsettled, later records wait', async () => {
    const h = withHealth({});
    h.client.reports.push(response(410));
    const gone = eventRecord();
    expect(await h.delivery.handle(gone, new AbortController().signal)).toBe('abandoned');
    expect(h.router.deadLetters).toHaveLength(0);
    expect(h.disabled).toEqual([
      expect.objectContaining({
        cause: 'gone',
        status: 410,
        reason: expect.stringContaining(gone.headers[CE_HEADER.id] ?? '?'),
      }),
    ]);
    const stop = new AbortController();
    const next = h.delivery.handle(eventRecord(), stop.signal);
    await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    expect(await next).toBe('abandoned');
    expect(h.client.sent).toHaveLength(1);
  });

  it('when the disable cannot be written, delivery goes on as before', async () => {
    const h = withHealth({});
    const failing = new EndpointHealth({
      definition: topology().definition,
      log: () => undefined,
      disable: async () => {
        throw new Error('registry unreachable');
      },
    });
    const delivery = new SubscriberDelivery({
      topology: topology(),
      decoder: h.decoder,
      client: h.client,
      limiter: h.limiter,
      router: h.router,
      observer: h.observer,
      health: failing,
    });
    h.client.reports.push(response(410));
    expect(await delivery.handle(eventRecord(), new AbortController().signal)).toBe('abandoned');
    await new Promise((r) => setImmediate(r));
    expect(await delivery.handle(eventRecord(), new AbortController().signal)).toBe('settled');
    expect(h.observer.steps.at(-1)?.step).toMatchObject({ kind: 'delivered' });
  });
});

describe('SubscriberDelivery with ordering "strict": retried in place, holding its key', () => {
  /** Handles the record on the fake clock until it settles or `limitMs` of simulated time passes. */
  async function onFakeClock(h: ReturnType<typeof harness>, record: ConsumedRecord, limitMs = 60_000) {
    vi.useFakeTimers();
    try {
      let outcome: string | undefined;
      const started = Date.now();
      void h.handle(record).then((o) => {
        outcome = o;
      });
      for (let ms = 0; ms < limitMs && outcome === undefined; ms += 500)
        await vi.advanceTimersByTimeAsync(500);
      return { outcome, elapsedMs: Date.now() - started };
    } finally {
      vi.useRealTimers();
    }
  }

  it('a failure waits its tier delay in place and is sent again, counting up; no tier record', async () => {
    const h = harness({ ordering: 'strict' });
    h.client.reports.push(response(503));
    const { outcome, elapsedMs } = await onFakeClock(h, eventRecord());
    expect(outcome).toBe('settled');
    expect(h.router.retries).toHaveLength(0);
    expect(h.client.sent.map((s) => JSON.parse(s.body).attempt)).toEqual([1, 2]);
    expect(h.lastStep()).toMatchObject({ kind: 'delivered', attempt: { number: 2 } });
    // The first tier's delay (1 s, no jitter) passed between the two, on the fake clock.
    expect(elapsedMs).toBeGreaterThanOrEqual(1000);
    expect(elapsedMs).toBeLessThan(2000);
  });

  it('dead-letters as exhausted at maxAttempts, with every attempt counted, and never routes to a tier', async () => {
    const h = harness({ ordering: 'strict' });
    h.client.reports.push(response(503), response(503), response(503));
    expect((await onFakeClock(h, eventRecord())).outcome).toBe('settled');
    expect(h.client.sent).toHaveLength(3);
    expect(h.router.retries).toHaveLength(0);
    expect(h.router.deadLetters[0]).toMatchObject({ reason: 'exhausted', trail: { attempts: 3 } });
  });

  it('past maxHoldMs it is dead-lettered as expired at once, so its key goes on', async () => {
    const h = harness({ ordering: 'strict', maxHoldMs: 5000 });
    // The second tier's 10 s would end past the 5 s hold: the second failure ends it.
    h.client.reports.push(response(503), response(503));
    expect((await onFakeClock(h, eventRecord())).outcome).toBe('settled');
    expect(h.client.sent).toHaveLength(2);
    expect(h.router.deadLetters[0]).toMatchObject({ reason: 'expired', trail: { attempts: 2 } });
    expect(h.router.retries).toHaveLength(0);
  });

  it('a terminal answer dead-letters as for any ordering', async () => {
    const h = harness({ ordering: 'strict' });
    h.client.reports.push(response(400));
    expect(await h.handle(eventRecord())).toBe('settled');
    expect(h.router.deadLetters[0]?.reason).toBe('terminal');
    expect(h.client.sent).toHaveLength(1);
  });

  it('stopped in the limiter after its wait: abandoned with its attempt, never handed to a tier', async () => {
    vi.useFakeTimers();
    try {
      const h = harness({ ordering: 'strict' });
      h.client.reports.push(response(503));
      let outcome: string | undefined;
      void h.handle(eventRecord()).then((o) => {
        outcome = o;
      });
      await vi.waitFor(() => expect(h.client.sent).toHaveLength(1));
      // The next schedule answers as a stopped limiter does.
      h.limiter.refuse = true;
      for (let ms = 0; ms < 5000 && outcome === undefined; ms += 500) await vi.advanceTimersByTimeAsync(500);
      expect(outcome).toBe('abandoned');
      expect(h.lastStep()).toMatchObject({ kind: 'abandoned', attempt: { number: 1 } });
      expect(h.router.retries).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stopped while it waits: abandoned with its attempt, nothing routed (the next reader starts it over, in order)', async () => {
    const h = harness({ ordering: 'strict' });
    h.client.reports.push(response(503));
    const stop = new AbortController();
    const handled = h.handle(eventRecord(), stop.signal);
    await vi.waitFor(() => expect(h.client.sent).toHaveLength(1));
    stop.abort();
    expect(await handled).toBe('abandoned');
    expect(h.lastStep()).toMatchObject({ kind: 'abandoned', attempt: { number: 1 } });
    expect(h.router.retries).toHaveLength(0);
    expect(h.router.deadLetters).toHaveLength(0);
  });
});
