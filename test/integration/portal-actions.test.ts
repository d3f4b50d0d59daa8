import { randomBytes } from 'node:crypto';
import { ApiServer, ApiTokens } from '@hookstream/api';
import { ApiClient } from '@hookstream/api-client';
import { CE_HEADER } from '@hookstream/contracts';
import { createKafka } from '@hookstream/kafka';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import { EventEncoder } from '@hookstream/producer';
import { LiveCatalog } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventFactory, newSecret } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// The portal's actions over the API in this process, against the real stack: a tenant's two
// endpoints (real receivers, pushers in this process), a resend that delivers an event again with
// its id, and an example that reaches one endpoint and not the other.
const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-portal-actions', quiet: true });
const tenant = uniqueName('portal-t');
const tenantToken = randomBytes(18).toString('base64url');
const otherToken = randomBytes(18).toString('base64url');
const fx = new KafkaFixture();
const receivers = new ReceiverPool();
const live = new LiveCatalog(kafka, () => undefined);
const operator = { scope: { kind: 'operator' as const }, id: 'test' };
let encoder: EventEncoder;
let service: ManagementService;
let server: ApiServer;
let client: ApiClient;
let topic: string;

beforeAll(async () => {
  await fx.connect();
  await live.start();
  topic = await fx.topic(1);
  encoder = await EventEncoder.start({ registry: endpoints.registrySettings });
  service = new ManagementService(
    kafkaPorts({
      kafka,
      catalog: live,
      eventsTopic: topic,
      secretsKey: undefined,
      openPublisher: async () => {
        throw new Error('no notice is due here');
      },
      examples: { encode: (event) => encoder.encode(event) },
    }),
  );
  server = new ApiServer({
    service,
    tokens: ApiTokens.parse([`${tenantToken}@${tenant}`, `${otherToken}@${uniqueName('portal-other')}`]),
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: 1000,
  });
  client = new ApiClient({ baseUrl: await server.start(), token: tenantToken, maxRetries: 0 });
});

afterAll(async () => {
  await server?.close();
  encoder?.close();
  await fx.close();
  await receivers.closeAll();
  await live.stop();
});

/** A subscriber of the tenant: its catalog record (what the API checks) and its pusher here. */
async function endpointOf(label: string) {
  const secret = newSecret();
  const receiver = await receivers.start({ secret });
  const name = uniqueName(label);
  const definition = {
    url: `${receiver.url}/hooks`,
    tenant,
    eventTypes: ['shipment.updated'],
    allowPrivateNetwork: true,
    allowInsecureHttp: true,
    start: 'earliest' as const,
  };
  await service.putSubscriber(operator, name, definition);
  await waitFor('the record in the live catalog', async () =>
    (await live.read()).subscribers.has(name) ? true : undefined,
  );
  await fx.startPusher(topic, { name, ...definition }, secret);
  return { name, receiver };
}

describe('the portal actions on the real stack', () => {
  it('resends an event to one endpoint with the same id, and sends an example to one endpoint only', async () => {
    const one = await endpointOf('pa-one');
    const two = await endpointOf('pa-two');
    const factory = await new EventFactory().init();
    const publish = async () => {
      const event = factory.event('shipment.updated');
      const message = await factory.message(event);
      await fx.producer.send({
        topic,
        acks: -1,
        messages: [{ ...message, headers: { ...message.headers, [CE_HEADER.tenant]: tenant } }],
      });
      return event.id;
    };
    const arrived = (r: typeof one.receiver, id: string) =>
      r.arrivals.filter((a) => a.eventId === id && a.status >= 200 && a.status < 300).length;

    const eventId = await publish();
    await waitFor('the event at both endpoints', async () =>
      arrived(one.receiver, eventId) === 1 && arrived(two.receiver, eventId) === 1 ? true : undefined,
    );

    const resent = await client.resendMessage(eventId, one.name);
    expect(resent.sentTo).toMatch(
      new RegExp(`^hookstream\\.sub\\.${one.name.replaceAll('.', '\\.')}\\.retry\\.1:`),
    );
    await waitFor('the resent event at the first endpoint, with its id', async () =>
      arrived(one.receiver, eventId) === 2 ? true : undefined,
    );

    const example = await client.sendExample(one.name, 'shipment.updated');
    await waitFor('the example at the first endpoint', async () =>
      arrived(one.receiver, example.eventId) === 1 ? true : undefined,
    );
    const body = one.receiver.arrivals.find((a) => a.eventId === example.eventId)?.body;
    expect(body).toMatchObject({ type: 'shipment.updated', tenant, shipment: { id: 'example id' } });

    // A later event reaches the second endpoint: by then it has read past anything sent before it.
    const fence = await publish();
    await waitFor('a later event at the second endpoint', async () =>
      arrived(two.receiver, fence) === 1 ? true : undefined,
    );
    expect(arrived(two.receiver, example.eventId)).toBe(0);
    expect(arrived(two.receiver, eventId)).toBe(1);

    // Another tenant's token finds neither the endpoint nor the event: 404, and nothing is sent.
    const other = new ApiClient({ baseUrl: client.baseUrl, token: otherToken, maxRetries: 0 });
    await expect(other.resendMessage(eventId, one.name)).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
    await expect(other.sendExample(one.name, 'shipment.updated')).rejects.toMatchObject({ status: 404 });
    // This process keeps no message index: the reads say so.
    await expect(client.listMessages()).rejects.toMatchObject({ code: 'messages_unavailable', status: 503 });
    expect(arrived(one.receiver, eventId)).toBe(2);
  });
});
