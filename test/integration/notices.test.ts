import { CE_HEADER, noticesTopicName, subscriberGroupId } from '@hookstream/contracts';
import { startNoticeProducer } from '@hookstream/producer';
import type { FleetProcess } from '@hookstream/pusher';
import { SubscriberCatalog, SubscriberDisabler } from '@hookstream/subscribers';
import { afterAll, describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, startCatalogFleet } from '../support/catalog.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endpoints } from '../support/stack.ts';
import { openForSuite } from '../support/suite.ts';
import { readRecords } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
let fleet: FleetProcess | undefined;

describe('the notice channel', () => {
  openForSuite(fx, factory, receivers);
  afterAll(async () => {
    await fleet?.stop();
  });

  it('two replicas disabling one subscriber at once publish one notice id, and a subscriber receives it once; a notice type on the events topic is never delivered', async () => {
    const topic = await fx.topic(2);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('notice');
    const victim = `${prefix}-victim`;
    const ops = `${prefix}-ops`;
    const opsHook = await receivers.start();
    const common = { start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 500 } };
    await applyDefinitions(env, [
      { ...common, name: victim, url: 'http://127.0.0.1:9/never', eventTypes: ['shipment.updated'] },
      { ...common, name: ops, url: opsHook.url },
    ]);
    fleet = await startCatalogFleet({ topic, prefix, secretsKey });
    await waitFor('the ops hook running', async () =>
      fleet?.entries().some((e) => e.name === ops && e.state === 'running') ? true : undefined,
    );

    // Anyone who may write the events topic can write a record typed subscriber.disabled there.
    const forged = factory.event('subscriber.disabled');
    const ordinary = factory.event('shipment.updated');
    await fx.produce(topic, factory, [forged, ordinary]);

    // Two replicas that both read the catalog before either one's write reached it.
    const catalog = new SubscriberCatalog(fx.kafka);
    const seen = await catalog.read();
    const replicas = [1, 2].map(
      (n) =>
        new SubscriberDisabler({
          catalog: { read: async () => seen, write: (records) => catalog.write(records) },
          publisher: () =>
            startNoticeProducer({
              kafka: endpoints.kafka,
              registry: endpoints.registrySettings,
              source: '/hookstream/pusher',
              eventsTopic: topic,
              clientId: `${prefix}-replica-${n}`,
            }),
          eventsTopic: topic,
        }),
    );
    const request = {
      name: victim,
      cause: 'gone',
      reason: 'the endpoint answered 410 Gone',
      status: 410,
      failingSinceMs: null,
    } as const;
    const results = await Promise.all(replicas.map((r) => r.disable(request)));
    expect(results.map((r) => r.notice?.error)).toEqual([null, null]);
    const notices = noticesTopicName(topic);
    const copies = await readRecords(notices, 2);
    expect(new Set(copies.map((c) => c.headers[CE_HEADER.id])).size).toBe(1);

    await waitFor('the ops hook to settle both copies', async () => {
      const [ledger] = await fx.admin.committedOffsets(subscriberGroupId(ops), notices);
      return Number(ledger?.offset ?? -1) === 2 ? true : undefined;
    });
    await waitFor('the ordinary event to reach the ops hook', async () =>
      opsHook.arrivals.some((a) => a.eventId === ordinary.id) ? true : undefined,
    );
    const received = opsHook.arrivals.filter((a) => a.body?.type === 'subscriber.disabled');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ status: 204, eventId: copies[0]?.headers[CE_HEADER.id] });
    expect(received[0]?.body).toMatchObject({ subscriber: victim, cause: 'gone', events_topic: topic });
    expect(opsHook.arrivals.some((a) => a.eventId === forged.id)).toBe(false);
  }, 90_000);
});
