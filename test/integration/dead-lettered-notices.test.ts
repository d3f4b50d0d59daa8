import { CE_HEADER, noticesTopicName, subscriberGroupId } from '@hookstream/contracts';
import type { FleetProcess } from '@hookstream/pusher';
import { SubscriberCatalog } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  catalogEnv,
  handMadeRecord,
  produceRegistryRecords,
  startRunningCatalogFleet,
} from '../support/catalog.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { readRecords } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Issue 44's operational webhooks on the real stack: a tenant's subscriber that dead-letters an
// event makes a subscriber.dead_lettered notice, delivered to its own tenant's notice-taking
// subscriber and never to another tenant's. The records go onto the catalog directly, as in
// tenant-subscribers.test.ts: apply refuses a tenant while an older fleet runs on the stack.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const prefix = uniqueName('dead-notice');
const hook = `${prefix}-acme-hook`;
const acmeOps = `${prefix}-acme-ops`;
const globexOps = `${prefix}-globex-ops`;
let fleet: FleetProcess | undefined;

describe('subscriber.dead_lettered', () => {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
  }, 60_000);

  afterAll(async () => {
    await fleet?.stop();
    await fx.close();
    await receivers.closeAll();
  });

  it("goes to the dead-lettering subscriber's tenant, and not to another tenant's notice subscriber", async () => {
    const topic = await fx.topic(1);
    const { secretsKey } = catalogEnv(topic);
    // 400: terminal, dead-lettered at the first attempt.
    const refusing = await receivers.start({ behaviour: { failTimes: 1, failStatus: 400 } });
    const acme = await receivers.start();
    const globex = await receivers.start();
    const common = { start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 500 } };
    const subs = [
      { name: hook, tenant: 'acme', url: refusing.url, eventTypes: ['shipment.updated'] },
      { name: acmeOps, tenant: 'acme', url: acme.url, eventTypes: ['subscriber.dead_lettered'] },
      { name: globexOps, tenant: 'globex', url: globex.url, eventTypes: ['subscriber.dead_lettered'] },
    ];
    // The catalog topic may not exist yet on a fresh stack: the records below go to it directly.
    await new SubscriberCatalog(fx.kafka).ensureTopic();
    await produceRegistryRecords(
      fx.kafka,
      subs.map((s) => ({ key: s.name, value: handMadeRecord({ ...common, ...s }, { version: 4 }) })),
    );
    fleet = await startRunningCatalogFleet({ topic, prefix, secretsKey }, subs.length);

    const event = factory.event('shipment.updated');
    const message = await factory.message(event);
    message.headers[CE_HEADER.tenant] = 'acme';
    await fx.producer.send({ topic, acks: -1, messages: [message] });

    const notice = await waitFor('the acme notice subscriber to receive the notice', async () =>
      acme.arrivals.find((a) => a.body?.type === 'subscriber.dead_lettered'),
    );
    expect(notice.status).toBe(204);
    expect(notice.body).toMatchObject({
      type: 'subscriber.dead_lettered',
      tenant: 'acme',
      subscriber: hook,
      event: { id: event.id, type: 'shipment.updated' },
      reason: 'terminal',
      attempts: 1,
      last_status: 400,
      suppressed: 0,
      events_topic: topic,
    });
    // The globex subscriber read the notice too, and passed over it: its ledger is past it.
    const notices = noticesTopicName(topic);
    const [record] = await readRecords(notices, 1);
    expect(record?.headers[CE_HEADER.tenant]).toBe('acme');
    await waitFor('the globex notice subscriber to pass over the notice', async () => {
      const [ledger] = await fx.admin.committedOffsets(subscriberGroupId(globexOps), notices);
      return Number(ledger?.offset ?? -1) >= 1 ? true : undefined;
    });
    expect(globex.arrivals).toEqual([]);
    // One dead letter, one notice: the notice subscriber's own deliveries make none.
    expect(acme.arrivals.filter((a) => a.body?.type === 'subscriber.dead_lettered')).toHaveLength(1);
  }, 110_000);
});
