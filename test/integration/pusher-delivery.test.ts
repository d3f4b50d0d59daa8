import { DeadLetterEvidence, dlqTopicName, HS_HEADER, readHsHeaders } from '@hookstream/contracts';
import { deliveryIdOf } from '@hookstream/delivery';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { EventFactory, newSecret } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();

describe('pusher delivery against the real stack and a real endpoint', () => {
  openForSuite(fx, factory, receivers);

  it('sends the contract body and headers, signed so the Standard Webhooks library verifies them', async () => {
    const secret = newSecret();
    const endpoint = await receivers.start({ secret });
    const topic = await fx.topic();
    const events = [factory.event(), factory.event('student.enrolled')];
    await fx.produce(topic, factory, events);
    const name = uniqueName('contract');
    await fx.startPusher(
      topic,
      { name, url: `${endpoint.url}/hooks?tenant=acme`, headers: { 'X-Tenant': 'acme' } },
      secret,
    );
    await waitFor('both events', async () => (endpoint.stats().accepted === 2 ? true : undefined));

    expect(endpoint.stats().badSignatures).toBe(0);
    for (const e of events) {
      const arrival = endpoint.arrivals.find((a) => a.eventId === e.id);
      expect(arrival?.status).toBe(204);
      expect(arrival?.body).toEqual({
        n: e.data.n,
        note: e.data.note,
        event_id: e.id,
        subscription_id: name,
        delivery_id: deliveryIdOf(name, e.id),
        attempt: 1,
        type: e.type,
        occurred_at: e.occurredAt,
      });
      const h = arrival?.headers ?? {};
      expect(h).toMatchObject({
        'content-type': 'application/json',
        'webhook-id': e.id,
        'idempotency-key': e.id,
        traceparent: e.traceparent,
        'x-tenant': 'acme',
      });
      expect(h['webhook-signature']).toMatch(/^v1,/);
      expect(Math.abs(Number(h['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      // Verified again here, independently of the receiver, on the exact bytes received.
      const raw = JSON.stringify(arrival?.body);
      expect(() =>
        new Webhook(secret).verify(raw, {
          'webhook-id': h['webhook-id'] ?? '',
          'webhook-timestamp': h['webhook-timestamp'] ?? '',
          'webhook-signature': h['webhook-signature'] ?? '',
        }),
      ).not.toThrow();
    }
    await fx.settledEverything(name, topic);
  });

  it('delivers only the event types the subscriber asked for, and settles the others', async () => {
    const endpoint = await receivers.start();
    const topic = await fx.topic();
    const wanted = [factory.event('shipment.created'), factory.event('shipment.created')];
    const others = [factory.event('shipment.updated'), factory.event('student.enrolled')];
    await fx.produce(
      topic,
      factory,
      [others[0], wanted[0], others[1], wanted[1]].filter((e) => e !== undefined),
    );
    const name = uniqueName('filter');
    const { pusher } = await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      eventTypes: ['shipment.created'],
    });
    await fx.settledEverything(name, topic);
    // At least once: a rebalance right after the first join may hand a record over twice.
    expect(new Set(endpoint.arrivals.map((a) => a.eventId))).toEqual(new Set(wanted.map((e) => e.id)));
    expect(pusher.counts.acknowledged).toBeGreaterThanOrEqual(2);
    // The others were passed over by their ce_type before the delivery saw them: nothing was
    // decoded, counted or logged for them, and the ledger still moved past them.
    expect(pusher.counts.filtered).toBe(0);
    expect(pusher.counts.poison).toBe(0);
  });

  it('does not retry a 400: one request, dead-lettered, the ledger moves on', async () => {
    const endpoint = await receivers.start({ behaviour: { fixedStatus: 400 } });
    const topic = await fx.topic(1);
    const events = [factory.event(), factory.event()];
    await fx.produce(topic, factory, events);
    const name = uniqueName('terminal');
    await fx.startPusher(topic, { name, url: endpoint.url });
    await fx.settledEverything(name, topic);
    expect(endpoint.arrivals.map((a) => a.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    const dead = await fx.readTopic(dlqTopicName(name), 2);
    expect(dead.map((r) => DeadLetterEvidence.parse(readHsHeaders(r.headers)))).toEqual(
      expect.arrayContaining(
        events.map((e) => expect.objectContaining({ eventId: e.id, reason: 'terminal', status: 400 })),
      ),
    );
  });

  it('retries a 5xx through the tiers, each attempt no earlier than its delay, and delivers on the third; the ledger ends settled', async () => {
    const endpoint = await receivers.start({ behaviour: { failTimes: 2, failStatus: 503 } });
    const topic = await fx.topic(1);
    const [e] = [factory.event()];
    if (!e) throw new Error('unreachable');
    await fx.produce(topic, factory, [e]);
    const name = uniqueName('retry');
    await fx.startPusher(topic, { name, url: endpoint.url });
    await waitFor('the third attempt', async () => (endpoint.stats().accepted === 1 ? true : undefined));
    expect(endpoint.arrivals.map((a) => [a.status, a.body?.attempt])).toEqual([
      [503, 1],
      [503, 2],
      [204, 3],
    ]);
    const gaps = endpoint.arrivals.slice(1).map((a, i) => a.atMs - (endpoint.arrivals[i]?.atMs ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(200);
    expect(gaps[1]).toBeGreaterThanOrEqual(400);
    await fx.settledEverything(name, topic);
  });

  it('holds the whole destination back for a 429 Retry-After of 2 s', async () => {
    // Every event's first attempt is refused with 429 + Retry-After: 2.
    const endpoint = await receivers.start({
      behaviour: { failTimes: 1, failStatus: 429, retryAfterSeconds: 2 },
    });
    const topic = await fx.topic(1);
    const events = [factory.event(), factory.event(), factory.event()];
    await fx.produce(topic, factory, events);
    const name = uniqueName('ratelimited');
    await fx.startPusher(topic, { name, url: endpoint.url, concurrency: 1 });
    await waitFor('all three accepted', async () => (endpoint.stats().accepted === 3 ? true : undefined), {
      timeoutMs: 30_000,
    });
    const arrivals = endpoint.arrivals;
    expect(arrivals.filter((a) => a.status === 429)).toHaveLength(3);
    // After each 429 the destination stays quiet for 2 s: not only that event's retry, but the
    // other events queued behind it too (without the pause they would follow at once).
    arrivals.forEach((a, i) => {
      const next = arrivals[i + 1];
      if (a.status === 429 && next) expect(next.atMs - a.atMs).toBeGreaterThanOrEqual(2000);
    });
    expect(arrivals.at(-1)?.status).toBe(204);
  });

  it('dead-letters an undecodable record and delivers the records after it', async () => {
    const endpoint = await receivers.start();
    const topic = await fx.topic(1);
    const [before, after] = [factory.event(), factory.event()];
    if (!before || !after) throw new Error('unreachable');
    await fx.produce(topic, factory, [before]);
    const poison = await factory.message(factory.event());
    await fx.producer.send({
      topic,
      acks: -1,
      messages: [{ ...poison, value: Buffer.from('not avro at all') }],
    });
    const unknownSchema = await factory.message(factory.event());
    unknownSchema.value.writeInt32BE(2_000_000_000, 1);
    await fx.producer.send({ topic, acks: -1, messages: [unknownSchema] });
    await fx.produce(topic, factory, [after]);
    const name = uniqueName('poison');
    const { pusher } = await fx.startPusher(topic, { name, url: endpoint.url });
    await fx.settledEverything(name, topic);
    // Both delivered, once each; with ordering "none" in-flight records arrive in no promised order.
    expect(endpoint.arrivals.map((a) => a.eventId).sort()).toEqual([before.id, after.id].sort());
    expect(pusher.counts.poison).toBe(2);
    // Records in flight at once reach the DLQ in no promised order (its topic is created by the
    // first of them); their evidence says where each came from.
    const dead = (await fx.readTopic(dlqTopicName(name), 2)).sort(
      (a, b) => Number(a.headers[HS_HEADER.originOffset]) - Number(b.headers[HS_HEADER.originOffset]),
    );
    // Dead letters are data: the original bytes, and evidence saying why.
    expect(dead.map((r) => r.value?.toString('latin1'))).toEqual([
      'not avro at all',
      unknownSchema.value.toString('latin1'),
    ]);
    const evidence = dead.map((r) => DeadLetterEvidence.parse(readHsHeaders(r.headers)));
    expect(evidence.map((e) => [e.reason, e.attempts, e.origin.offset])).toEqual([
      ['poison', 0, '1'],
      ['poison', 0, '2'],
    ]);
    expect(evidence.map((e) => e.excerpt)).toEqual([
      expect.stringContaining('magic byte'),
      expect.stringContaining('unknown schema id'),
    ]);
  });
});
