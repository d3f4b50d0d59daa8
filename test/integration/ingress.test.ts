import type { RunningIngress } from '@hookstream/ingress';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostOptions, post, startTestIngress, TOKENS } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { endOffsetTotal, readRecords } from '../support/topic.ts';

const shipment = { type: 'shipment.updated', data: { shipment: { id: 'shp-9', status: 'in_transit' } } };
const forgedNotice = {
  type: 'subscriber.disabled',
  data: {
    subscriber: 'billing',
    cause: 'gone',
    reason: 'forged',
    disabled_at: '2026-11-30T09:00:00Z',
    events_topic: 'events',
  },
};

describe('ingress over HTTP against the real Kafka and registry', () => {
  const topic = uniqueName('ingress-test');
  const registry = new SchemaRegistry({ host: endpoints.registry });
  let ingress: RunningIngress;
  let events: string;

  beforeAll(async () => {
    ingress = await startTestIngress(topic);
    events = `${ingress.url}/v1/events`;
  });
  afterAll(() => ingress.close());

  it('answers 202 with id, partition and offset once Kafka has the event, readable through the registry', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const answer = await post(
      events,
      { ...shipment, key: 'shp-9', occurred_at: '2026-11-30T09:00:00Z' },
      { headers: { traceparent } },
    );
    expect(answer.status).toBe(202);
    const body = answer.body as { event_id: string; partition: number; offset: string };
    expect(body.event_id).toMatch(/^[0-9a-f-]{36}$/);

    const [record] = await readRecords(topic, 1);
    expect([record?.partition, record?.offset, record?.key]).toEqual([body.partition, body.offset, 'shp-9']);
    expect(record?.headers).toMatchObject({
      ce_id: body.event_id,
      ce_type: 'shipment.updated',
      ce_source: '/ingress',
      ce_time: '2026-11-30T09:00:00Z',
      ce_specversion: '1.0',
      'content-type': 'application/avro',
      traceparent,
    });
    expect(await registry.decode(record?.value as Buffer)).toEqual({
      shipment: { id: 'shp-9', status: 'in_transit', carrier: null, tracking_number: null, updated_at: null },
    });
  });

  const big = 'x'.repeat(300 * 1024);
  /** Event data nested 10,000 objects deep (50 KiB): past MAX_EVENT_JSON_DEPTH, within the byte limit. */
  const deep = `{"type":"shipment.updated","data":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_001)}`;
  const cases: [string, unknown, PostOptions & { batch?: boolean }, number, string][] = [
    ['malformed JSON', '{"type": "shipment.updated",', {}, 400, 'malformed_json'],
    ['event data nested 10,000 deep', deep, {}, 400, 'body_too_deep'],
    [
      'a batch of event data nested 10,000 deep',
      `{"events":[${deep}]}`,
      { batch: true },
      400,
      'body_too_deep',
    ],
    ['schema-invalid data', { ...shipment, data: { shipment: { id: 'shp-9' } } }, {}, 400, 'invalid_data'],
    ['an unknown type', { ...shipment, type: 'parcel.lost' }, {}, 400, 'unknown_type'],
    [
      'a reserved field',
      { ...shipment, data: { ...shipment.data, delivery_id: 'd' } },
      {},
      400,
      'reserved_field',
    ],
    ['a bad event id', { ...shipment, id: 'no spaces allowed' }, {}, 400, 'invalid_request'],
    [
      'an occurred_at in year 9999',
      { ...shipment, occurred_at: '9999-12-31T23:59:59Z' },
      {},
      400,
      'invalid_request',
    ],
    ['no token', shipment, { token: null }, 401, 'unauthorized'],
    ['an unknown token', shipment, { token: 'test-token-nobody-0123456789' }, 401, 'unauthorized'],
    ['a type the token may not publish', shipment, { token: TOKENS.keysOnly }, 403, 'forbidden_type'],
    // A notice would announce what hookstream did: from outside, something that did not happen.
    ['a forged subscriber.disabled, with a token for every type', forgedNotice, {}, 403, 'reserved_type'],
    [
      'a forged subscriber.disabled, with a token limited to other types',
      forgedNotice,
      { token: TOKENS.keysOnly },
      403,
      'reserved_type',
    ],
    [
      'a batch carrying a forged subscriber.enabled',
      { events: [shipment, { ...forgedNotice, type: 'subscriber.enabled' }] },
      { batch: true },
      403,
      'invalid_batch',
    ],
    [
      'a body over 256 KiB',
      { ...shipment, data: { shipment: { id: big, status: 's' } } },
      {},
      413,
      'payload_too_large',
    ],
    [
      'a non-JSON content type',
      JSON.stringify(shipment),
      { contentType: 'text/plain' },
      415,
      'unsupported_media_type',
    ],
    [
      'a batch with one invalid event',
      { events: [shipment, { ...shipment, data: {} }] },
      { batch: true },
      400,
      'invalid_batch',
    ],
    [
      'a batch with a forbidden type',
      { events: [{ type: 'key.revoked', data: { tenant_id: 't', key_id: 'k' } }, shipment] },
      { batch: true, token: TOKENS.keysOnly },
      403,
      'invalid_batch',
    ],
  ];
  it.each(cases)('refuses %s with %i and writes nothing', async (_, body, options, status, code) => {
    const before = await endOffsetTotal(topic);
    const { batch, ...rest } = options;
    const answer = await post(batch ? `${events}/batch` : events, body, rest);
    expect(answer.status).toBe(status);
    expect((answer.body as { error: { code: string } }).error.code).toBe(code);
    expect(await endOffsetTotal(topic)).toBe(before);
  });

  it('names the failing path of schema-invalid data, and per-item errors of a batch', async () => {
    const invalid = await post(events, { ...shipment, data: { shipment: { id: 'shp-9', status: 3 } } });
    expect((invalid.body as { error: { details: unknown[] } }).error.details[0]).toMatchObject({
      path: 'data.shipment.status',
    });
    const batch = await post(`${events}/batch`, { events: [shipment, { ...shipment, type: 'nope.nope' }] });
    expect((batch.body as { error: { details: unknown[] } }).error.details).toEqual([
      expect.objectContaining({ index: 1, status: 400, code: 'unknown_type' }),
    ]);
  });

  it('writes a duplicate id once and answers it with the original result', async () => {
    const before = await endOffsetTotal(topic);
    const event = { ...shipment, id: uniqueName('evt') };
    const first = await post(events, event);
    const second = await post(events, event);
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ...(first.body as object), duplicate: true });
    expect(await endOffsetTotal(topic)).toBe(before + 1);
  });

  it("keeps producers' ids apart: another token's event with the same id is written", async () => {
    const id = uniqueName('evt-shared');
    const before = await endOffsetTotal(topic);
    const revoked = { type: 'key.revoked', id, data: { tenant_id: 't', key_id: 'k' } };
    const first = await post(events, revoked, { token: TOKENS.keysOnly });
    const second = await post(events, { ...shipment, id });
    expect([first.status, second.status]).toEqual([202, 202]);
    expect((second.body as { duplicate: boolean }).duplicate).toBe(false);
    expect(await endOffsetTotal(topic)).toBe(before + 2);
    const records = await readRecords(topic, before + 2);
    expect(
      records
        .filter((r) => r.headers.ce_id === id)
        .map((r) => r.headers.ce_type)
        .sort(),
    ).toEqual(['key.revoked', 'shipment.updated']);
  });

  it('refuses an id reused for a different event by the same producer with 409, writing nothing', async () => {
    const id = uniqueName('evt-reused');
    const event = { ...shipment, id, key: 'shp-9' };
    expect((await post(events, event)).status).toBe(202);
    const before = await endOffsetTotal(topic);
    const changed = await post(events, {
      ...event,
      data: { shipment: { id: 'shp-9', status: 'delivered' } },
    });
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ error: { code: 'id_conflict', details: [{ path: 'id' }] } });
    // Another key or occurred_at is another event too.
    expect((await post(events, { ...event, key: 'shp-10' })).status).toBe(409);
    expect((await post(events, { ...event, occurred_at: '2026-11-30T09:00:00Z' })).status).toBe(409);
    // The same event again, its fields in another order, is a duplicate.
    const again = await post(events, { data: event.data, key: event.key, id, type: event.type });
    expect(again.status).toBe(200);
    // A batch repeating an id with two bodies is refused whole.
    const other = uniqueName('evt-batch');
    const batch = await post(`${events}/batch`, {
      events: [
        { ...shipment, id: other },
        { type: 'key.revoked', id: uniqueName('evt-ok'), data: { tenant_id: 't', key_id: 'k' } },
        { ...shipment, id: other, data: { shipment: { id: 'shp-9', status: 'lost' } } },
      ],
    });
    expect(batch.status).toBe(409);
    expect(batch.body).toMatchObject({ error: { code: 'id_conflict', details: [{ path: 'events[2].id' }] } });
    expect(await endOffsetTotal(topic)).toBe(before);
  });

  it('writes a valid batch and answers each event', async () => {
    const before = await endOffsetTotal(topic);
    const batch = Array.from({ length: 20 }, (_, i) => ({
      type: 'enrollment.updated',
      key: `enr-${i % 4}`,
      data: { enrollment: { id: `enr-${i}`, student_id: 'st', course_id: 'c', status: 'active' } },
    }));
    const answer = await post(`${events}/batch`, { events: batch });
    expect(answer.status).toBe(202);
    expect((answer.body as { results: unknown[] }).results).toHaveLength(20);
    expect(await endOffsetTotal(topic)).toBe(before + 20);
  });

  it('reports health and readiness', async () => {
    expect((await fetch(`${ingress.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${ingress.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { kafka: true, registry: true } });
  });
});

describe('ingress shutdown', () => {
  it('finishes in-flight requests, writes their events, then stops listening', async () => {
    const topic = uniqueName('ingress-shutdown');
    const ingress = await startTestIngress(topic);
    const url = `${ingress.url}/v1/events`;
    const inFlight = Array.from({ length: 50 }, (_, i) =>
      post(url, { type: 'key.revoked', data: { tenant_id: `t${i}`, key_id: 'k' } }),
    );
    // Shut down once the first answer is back: the others are in flight by then.
    await Promise.race(inFlight);
    const closing = ingress.close();
    const answers = await Promise.allSettled(inFlight);
    await closing;
    const accepted = answers.filter((a) => a.status === 'fulfilled' && a.value.status === 202).length;
    // Requests the server had taken are answered 202, never with an error; their events are stored.
    for (const a of answers) if (a.status === 'fulfilled') expect(a.value.status).toBe(202);
    expect(accepted).toBeGreaterThan(1);
    expect(await endOffsetTotal(topic)).toBe(accepted);
    await expect(fetch(`${ingress.url}/healthz`)).rejects.toThrow();
  });
});

describe('ingress demo mode', () => {
  it('accepts events without a token only when INGRESS_DEMO=1 and no tokens are configured', async () => {
    const topic = uniqueName('ingress-demo');
    const ingress = await startTestIngress(topic, { INGRESS_TOKENS: '', INGRESS_DEMO: '1' });
    try {
      const answer = await post(`${ingress.url}/v1/events`, shipment, { token: null });
      expect(answer.status).toBe(202);
      expect(await endOffsetTotal(topic)).toBe(1);
    } finally {
      await ingress.close();
    }
    // The negative cases: INGRESS_DEMO=1 with tokens configured still needs a token...
    const withTokens = uniqueName('ingress-demo-tokens');
    const guarded = await startTestIngress(withTokens, { INGRESS_DEMO: '1' });
    try {
      const answer = await post(`${guarded.url}/v1/events`, shipment, { token: null });
      expect(answer.status).toBe(401);
      expect(await endOffsetTotal(withTokens)).toBe(0);
    } finally {
      await guarded.close();
    }
    // ...no tokens without INGRESS_DEMO refuses to start, and demo mode beyond loopback too.
    // (The configuration is read before anything starts, so these throw at once.)
    expect(() => startTestIngress(uniqueName('ingress-no-tokens'), { INGRESS_TOKENS: '' })).toThrow(
      /^INGRESS_TOKENS: no bearer tokens configured/,
    );
    expect(() =>
      startTestIngress(uniqueName('ingress-demo-open'), {
        INGRESS_TOKENS: '',
        INGRESS_DEMO: '1',
        INGRESS_HOST: '0.0.0.0',
      }),
    ).toThrow(/^INGRESS_HOST: demo mode/);
  });
});
