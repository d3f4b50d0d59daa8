import { CATALOG_TOPIC } from '@hookstream/contracts';
import { createKafka, RecordSender, readTopic } from '@hookstream/kafka';
import { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { parseSecretsKey } from '@hookstream/subscribers';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, subscribersCli } from '../support/catalog.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture, type LogLine } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const TYPES = ['shipment.updated', 'enrollment.updated', 'key.revoked'] as const;
const COUNT = 50;
const prefix = uniqueName('fleet');
const nameOf = (i: number) => `${prefix}-${String(i).padStart(2, '0')}`;
/** Subscriber i wants one type, every tenth all of them. */
const typesOf = (i: number): string[] => (i % 10 === 0 ? ['*'] : [TYPES[i % 3] ?? 'key.revoked']);

let topic = '';
let env: NodeJS.ProcessEnv = {};
let secretsKey = '';
let endpoint: SampleReceiver;
let fleet: FleetProcess;
const logs: LogLine[] = [];

function definition(i: number, overrides: Record<string, unknown> = {}) {
  return {
    name: nameOf(i),
    url: endpoint.url,
    eventTypes: typesOf(i),
    start: 'earliest',
    allowPrivateNetwork: true,
    rate: { perSecond: 1000 },
    retry: { delaysMs: [300], maxAttempts: 3, jitter: 0 },
    ...overrides,
  };
}

/** Event ids each subscriber answered 2xx for, in arrival order. */
function accepted(receiver: SampleReceiver, name: string): string[] {
  return receiver.arrivals
    .filter((a) => a.subscriptionId === name && a.status === 204)
    .map((a) => a.eventId ?? '');
}

async function publish(events: readonly TestEvent[]): Promise<void> {
  await fx.produce(topic, factory, events);
}

const running = () =>
  fleet
    .entries()
    .filter((e) => e.state === 'running')
    .map((e) => e.name);

describe('a fleet hosting many subscribers in one process', () => {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    topic = await fx.topic(3);
    ({ env, secretsKey } = catalogEnv(topic));
    endpoint = await receivers.start();
    await applyDefinitions(
      env,
      Array.from({ length: COUNT }, (_, i) => definition(i)),
    );
    fleet = new FleetProcess({
      kafka: endpoints.kafka,
      registry: endpoints.registrySettings,
      topic,
      match: `${prefix}-*`,
      secretsKey: parseSecretsKey(secretsKey, 'the test key'),
      tierPartitions: 1,
      fetchWaitMs: 100,
      log: (level, message, fields = {}) => logs.push({ level, message, fields }),
      logFor:
        (name) =>
        (level, message, fields = {}) =>
          logs.push({ level, message, fields: { subscriber: name, ...fields } }),
    });
    await fleet.start();
    await waitFor(
      `${COUNT} subscribers running`,
      async () => (running().length === COUNT ? true : undefined),
      {
        timeoutMs: 90_000,
      },
    );
  }, 150_000);

  afterAll(async () => {
    await fleet?.stop();
    await fx.close();
    await receivers.closeAll();
  });

  it('runs 50 subscribers, each its own group, each receiving exactly the events of its types', async () => {
    const events = TYPES.flatMap((type) => Array.from({ length: 4 }, () => factory.event(type)));
    await publish(events);
    const expected = (i: number) =>
      events.filter((e) => typesOf(i).includes('*') || typesOf(i).includes(e.type)).map((e) => e.id);
    await waitFor(
      'every subscriber to receive its events',
      async () =>
        Array.from({ length: COUNT }, (_, i) => i).every(
          (i) => accepted(endpoint, nameOf(i)).length >= expected(i).length,
        )
          ? true
          : undefined,
      { timeoutMs: 60_000 },
    );
    for (let i = 0; i < COUNT; i++) expect(accepted(endpoint, nameOf(i)).sort()).toEqual(expected(i).sort());
    // Each is its own consumer group with its own ledger.
    for (const i of [0, 1, 2, 49]) await fx.settledEverything(nameOf(i), topic);
  });

  it('starts a subscriber applied while it runs within 5 s, without a restart', async () => {
    const late = COUNT;
    const [event] = [factory.event('key.revoked')];
    if (!event) throw new Error('unreachable');
    await publish([event]);
    await applyDefinitions(env, [definition(late, { eventTypes: ['key.revoked'] })]);
    const applied = Date.now();
    await waitFor('the new subscriber to deliver', async () =>
      accepted(endpoint, nameOf(late)).includes(event.id) ? true : undefined,
    );
    expect(Date.now() - applied).toBeLessThanOrEqual(5000);
  });

  it('pause holds (no request, ledger unchanged); resume catches up with nothing lost', async () => {
    const paused = nameOf(3);
    const control = nameOf(6); // wants the same type
    await fx.settledEverything(paused, topic);
    await subscribersCli(env, 'pause', paused, '--reason', 'maintenance window');
    await waitFor('the paused subscriber to stop', async () =>
      running().includes(paused) ? undefined : true,
    );
    const ledgerBefore = await fx.ledger(paused, topic);
    const before = accepted(endpoint, paused).length;
    const events = Array.from({ length: 5 }, () => factory.event(typesOf(3)[0]));
    await publish(events);
    await waitFor('the control subscriber to receive them', async () =>
      events.every((e) => accepted(endpoint, control).includes(e.id)) ? true : undefined,
    );
    expect(accepted(endpoint, paused)).toHaveLength(before);
    expect(await fx.ledger(paused, topic)).toBe(ledgerBefore);

    await subscribersCli(env, 'resume', paused);
    await waitFor('the resumed subscriber to catch up', async () =>
      events.every((e) => accepted(endpoint, paused).includes(e.id)) ? true : undefined,
    );
    await fx.settledEverything(paused, topic);
  });

  it('a changed definition takes effect without a restart: only that subscriber moves', async () => {
    const moved = nameOf(4);
    const elsewhere = await receivers.start();
    await applyDefinitions(env, [{ ...definition(4), url: elsewhere.url }]);
    const event = factory.event(typesOf(4)[0]);
    await waitFor('the changed subscriber to restart', async () => {
      const entry = fleet.entries().find((e) => e.name === moved);
      return entry?.state === 'running' &&
        logs.some((l) => l.message === 'subscriber changed; restarting it' && l.fields.subscriber === moved)
        ? true
        : undefined;
    });
    await publish([event]);
    await waitFor('the event at the new URL', async () =>
      accepted(elsewhere, moved).includes(event.id) ? true : undefined,
    );
    expect(accepted(endpoint, moved)).not.toContain(event.id);
  });

  it('a catalog record that does not parse or decrypt is reported; the subscriber keeps its last good definition', async () => {
    const victim = nameOf(7);
    const managed = nameOf(8);
    await applyDefinitions(env, [{ ...definition(8), secret: { managed: true } }]);
    await waitFor('the managed subscriber restarted', async () =>
      logs.some(
        (l) => l.message === 'subscriber changed; restarting it' && l.fields.subscriber === managed,
      ) && running().includes(managed)
        ? true
        : undefined,
    );
    const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'fleet-test', quiet: true });
    const [stored] = await readTopic(kafka, {
      topic: CATALOG_TOPIC,
      keep: (r) => r.key === managed,
      purpose: 'fleet-test',
    }).then((rs) => rs.slice(-1));
    const tampered = JSON.parse(stored?.value?.toString() ?? '{}');
    tampered.secret.current.ciphertext = Buffer.from('not the secret').toString('base64');
    const sender = new RecordSender(kafka);
    await sender.connect();
    await sender.send(CATALOG_TOPIC, [
      { key: victim, value: Buffer.from('{ not json'), headers: {} },
      { key: managed, value: Buffer.from(JSON.stringify(tampered)), headers: {} },
    ]);
    await sender.disconnect();
    const tamperedAt = logs.length;
    await waitFor('both reported', async () => {
      const reported = logs.filter((l) => l.message.startsWith('subscriber record unusable'));
      return [victim, managed].every((n) => reported.some((l) => l.fields.subscriber === n))
        ? true
        : undefined;
    });
    const events = [factory.event(typesOf(7)[0]), factory.event(typesOf(8)[0])];
    await publish(events);
    await waitFor('both still deliver', async () =>
      accepted(endpoint, victim).includes(events[0]?.id ?? '') &&
      endpoint.arrivals.some((a) => a.subscriptionId === managed && a.eventId === events[1]?.id)
        ? true
        : undefined,
    );
    // Kept its last good definition: the unusable records restarted neither of them.
    const restarts = logs
      .slice(tamperedAt)
      .filter((l) => l.message === 'subscriber changed; restarting it')
      .map((l) => l.fields.subscriber);
    expect(restarts.filter((n) => n === victim || n === managed)).toEqual([]);
    if (![victim, managed].every((n) => running().includes(n)))
      // Not a restart: say what state they are in, so a failure here can be told apart.
      console.warn(
        'not both running yet:',
        fleet.entries().filter((e) => e.name === victim || e.name === managed),
      );
    await waitFor('both running', async () =>
      [victim, managed].every((n) => running().includes(n)) ? true : undefined,
    );
  });

  it('a managed secret signs; during a rotation requests carry both signatures', async () => {
    const name = nameOf(9);
    const signed = await receivers.start();
    await applyDefinitions(env, [{ ...definition(9), url: signed.url, secret: { managed: true } }]);
    const shown = await subscribersCli<{ current: string }>(env, 'secret', 'show', name, '--json');
    const first = factory.event(typesOf(9)[0]);
    await waitFor('restarted with the managed secret', async () =>
      logs.some((l) => l.message === 'subscriber changed; restarting it' && l.fields.subscriber === name) &&
      running().includes(name)
        ? true
        : undefined,
    );
    await publish([first]);
    await waitFor('the first signed event', async () =>
      signed.arrivals.some((a) => a.eventId === first.id) ? true : undefined,
    );
    const one = signed.arrivals.find((a) => a.eventId === first.id);
    expect(one?.headers?.['webhook-signature']?.split(' ')).toHaveLength(1);

    const rotated = await subscribersCli<{ current: string }>(env, 'secret', 'rotate', name, '--json');
    const second = factory.event(typesOf(9)[0]);
    await waitFor('restarted with both keys', async () =>
      logs.filter((l) => l.message === 'subscriber changed; restarting it' && l.fields.subscriber === name)
        .length >= 2 && running().includes(name)
        ? true
        : undefined,
    );
    await publish([second]);
    await waitFor('the event after the rotation', async () =>
      signed.arrivals.some((a) => a.eventId === second.id) ? true : undefined,
    );
    const both = signed.arrivals.find((a) => a.eventId === second.id);
    const headers = both?.headers ?? {};
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    const body = JSON.stringify(both?.body);
    // A receiver holding either secret verifies the request (the body as sent, re-serialised).
    for (const secret of [shown.current, rotated.current])
      expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
  });
});
