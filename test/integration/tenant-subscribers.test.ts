import { CE_HEADER } from '@hookstream/contracts';
import type { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  catalogEnv,
  handMadeRecord,
  produceRegistryRecords,
  startRunningCatalogFleet,
} from '../support/catalog.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

// Issue 26 item 3 on the real stack: events carry their tenant in the ce_tenant header (written
// here by hand, as the ingress will); a fleet's subscribers of a tenant receive exactly that
// tenant's events of their types, retries included, and subscribers without a tenant every event.
// The records go onto the catalog directly, not through `subscribers apply`: the stack is shared,
// and apply rightly refuses a tenant while any older fleet on it runs (catalog-versions tests that).

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const prefix = uniqueName('tenants');
const TENANTS = ['acme', 'globex', undefined] as const;
const TYPES = ['shipment.updated', 'key.revoked'] as const;

interface Sub {
  readonly name: string;
  readonly tenant?: string;
  readonly eventTypes: string[];
  /** Its endpoint fails every event's first attempt: each goes through its retry tier. */
  readonly retries?: boolean;
}

const SUBS: readonly Sub[] = [
  { name: `${prefix}-acme-all`, tenant: 'acme', eventTypes: ['*'] },
  { name: `${prefix}-acme-ship`, tenant: 'acme', eventTypes: ['shipment.updated'] },
  { name: `${prefix}-acme-retry`, tenant: 'acme', eventTypes: ['*'], retries: true },
  { name: `${prefix}-globex-all`, tenant: 'globex', eventTypes: ['*'] },
  { name: `${prefix}-initech-all`, tenant: 'initech', eventTypes: ['*'] },
  { name: `${prefix}-ops-all`, eventTypes: ['*'] },
  { name: `${prefix}-ops-keys`, eventTypes: ['key.revoked'] },
];

let fleet: FleetProcess | undefined;
let topic = '';
let steady: SampleReceiver;
let failing: SampleReceiver;

const endpointOf = (sub: Sub) => (sub.retries ? failing : steady);

/** Event ids the subscriber answered 2xx for. */
function delivered(sub: Sub): string[] {
  return endpointOf(sub)
    .arrivals.filter((a) => a.subscriptionId === sub.name && a.status >= 200 && a.status < 300)
    .map((a) => a.eventId ?? '');
}

/** Every request it received, failed ones included. */
function requested(sub: Sub): string[] {
  return endpointOf(sub)
    .arrivals.filter((a) => a.subscriptionId === sub.name)
    .map((a) => a.eventId ?? '');
}

interface Published extends TestEvent {
  readonly tenant: string | undefined;
}

/** Produces the events with their tenant in ce_tenant (none: no header at all). */
async function publish(events: readonly Published[]): Promise<void> {
  const messages = await Promise.all(
    events.map(async (e) => {
      const message = await factory.message(e);
      if (e.tenant !== undefined) message.headers[CE_HEADER.tenant] = e.tenant;
      return message;
    }),
  );
  await fx.producer.send({ topic, acks: -1, messages });
}

const expectedFor = (sub: Sub, events: readonly Published[]) =>
  events
    .filter((e) => sub.tenant === undefined || e.tenant === sub.tenant)
    .filter((e) => sub.eventTypes.includes('*') || sub.eventTypes.includes(e.type))
    .map((e) => e.id)
    .sort();

describe('subscribers of a tenant in a fleet', () => {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    topic = await fx.topic(3);
    const { secretsKey } = catalogEnv(topic);
    steady = await receivers.start();
    failing = await receivers.start({ behaviour: { failTimes: 1, failStatus: 503 } });
    await produceRegistryRecords(
      fx.kafka,
      SUBS.map((s) => ({
        key: s.name,
        value: handMadeRecord(
          {
            name: s.name,
            url: endpointOf(s).url,
            eventTypes: s.eventTypes,
            ...(s.tenant === undefined ? {} : { tenant: s.tenant }),
            start: 'earliest',
            allowPrivateNetwork: true,
            rate: { perSecond: 1000 },
            retry: { delaysMs: [200], maxAttempts: 3, jitter: 0 },
          },
          { version: s.tenant === undefined ? 2 : 4 },
        ),
      })),
    );
    fleet = await startRunningCatalogFleet({ topic, prefix, secretsKey }, SUBS.length);
  }, 150_000);

  afterAll(async () => {
    await fleet?.stop();
    await fx.close();
    await receivers.closeAll();
  });

  it("delivers each event to the subscribers of its tenant and to those without one, nobody else's, retries included", async () => {
    const events: Published[] = TENANTS.flatMap((tenant) =>
      TYPES.flatMap((type) => Array.from({ length: 5 }, () => ({ ...factory.event(type), tenant }))),
    );
    await publish(events);
    await waitFor(
      'every subscriber to receive its events',
      async () =>
        SUBS.every((s) => delivered(s).length >= expectedFor(s, events).length) ? true : undefined,
      { timeoutMs: 60_000 },
    );
    // Every record settles (others' as filtered): the ledgers reach the topic's end.
    for (const s of SUBS) await fx.settledEverything(s.name, topic);
    for (const s of SUBS) expect(delivered(s).sort(), s.name).toEqual(expectedFor(s, events));
    // Not one request carried another tenant's event, not even a failed first attempt.
    for (const s of SUBS) expect([...new Set(requested(s))].sort(), s.name).toEqual(expectedFor(s, events));
    const retried = SUBS.find((s) => s.retries);
    if (retried === undefined) throw new Error('no retrying subscriber');
    // Each of its events was attempted twice: once failed, once from its tier.
    expect(requested(retried)).toHaveLength(expectedFor(retried, events).length * 2);
    // A tenant nobody publishes for gets nothing; the tenant-less ones get events without a tenant too.
    expect(delivered(SUBS.find((s) => s.tenant === 'initech') as Sub)).toEqual([]);
    expect(expectedFor(SUBS.find((s) => s.name.endsWith('ops-all')) as Sub, events)).toHaveLength(
      events.length,
    );
  });
});
