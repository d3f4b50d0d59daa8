import { dlqTopicName, type SubscriberRecord } from '@hookstream/contracts';
import type { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { afterAll, describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, startCatalogFleet, subscribersCli } from '../support/catalog.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
let fleet: FleetProcess | undefined;

/** The operational events (subscriber.disabled / enabled) the ops hook received about `name`. */
const notices = (ops: SampleReceiver, name: string) =>
  ops.arrivals
    .filter((a) => a.status === 204 && a.body?.subscriber === name)
    .map((a) => a.body as Record<string, unknown>);

describe('410 Gone disables a subscriber with notice; resume enables it and its ledger continues', () => {
  openForSuite(fx, factory, receivers);
  afterAll(async () => {
    await fleet?.stop();
  });

  it('disables at the first 410, announces it to another subscriber, and delivers everything after resume', async () => {
    const topic = await fx.topic(2);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('gone');
    const victim = `${prefix}-victim`;
    const opsHook = `${prefix}-ops`;
    const endpoint = await receivers.start({ behaviour: { fixedStatus: 410 } });
    const ops = await receivers.start();
    const common = { start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 500 } };
    await applyDefinitions(env, [
      { ...common, name: victim, url: endpoint.url, eventTypes: ['shipment.updated'] },
      { ...common, name: opsHook, url: ops.url, eventTypes: ['subscriber.disabled', 'subscriber.enabled'] },
    ]);
    fleet = await startCatalogFleet({ topic, prefix, secretsKey });
    const running = () => (fleet?.entries() ?? []).filter((e) => e.state === 'running').map((e) => e.name);
    await waitFor('both subscribers running', async () => (running().length === 2 ? true : undefined), {
      timeoutMs: 30_000,
    });

    const before = Array.from({ length: 5 }, () => factory.event('shipment.updated'));
    await fx.produce(topic, factory, before);
    const shown = () => subscribersCli<SubscriberRecord>(env, 'show', victim, '--json');
    const disabled = await waitFor('the victim disabled in the catalog', async () => {
      const { state } = await shown();
      return state.kind === 'disabled' ? state : undefined;
    });
    expect(disabled).toMatchObject({ cause: 'gone', reason: expect.stringContaining('410 Gone') });
    await waitFor('its consumer to stop', async () => (running().includes(victim) ? undefined : true));
    const [notice] = await waitFor('the ops hook to receive subscriber.disabled', async () => {
      const got = notices(ops, victim).filter((n) => n.type === 'subscriber.disabled');
      return got.length > 0 ? got : undefined;
    });
    expect(notice).toMatchObject({
      cause: 'gone',
      status: 410,
      events_topic: topic,
      disabled_at: disabled.at,
    });
    // Nothing settled as a dead letter: the 410'd events wait below the ledger.
    const dlq = dlqTopicName(victim);
    if ((await fx.admin.listTopics()).includes(dlq)) expect(await fx.admin.topicDepth(dlq)).toBe(0);

    endpoint.setBehaviour({ fixedStatus: null });
    const during = Array.from({ length: 3 }, () => factory.event('shipment.updated'));
    await fx.produce(topic, factory, during);
    const resumed = await subscribersCli<{ published?: string; state: { kind: string } }>(
      env,
      'resume',
      victim,
      '--by',
      'ops-test',
      '--json',
    );
    expect(resumed.state.kind).toBe('active');
    expect(resumed.published).toMatch(/^subscriber\.enabled:/);
    await waitFor('the ops hook to receive subscriber.enabled', async () =>
      notices(ops, victim).some((n) => n.type === 'subscriber.enabled' && n.by === 'ops-test')
        ? true
        : undefined,
    );
    const all = [...before, ...during].map((e) => e.id).sort();
    const accepted = () =>
      endpoint.arrivals.filter((a) => a.subscriptionId === victim && a.status === 204).map((a) => a.eventId);
    await waitFor('every event delivered after the resume', async () =>
      new Set(accepted()).size === all.length ? true : undefined,
    );
    await fx.settledEverything(victim, topic);
    expect(accepted().sort()).toEqual(all);
    // Several requests answered 410 at once; the subscriber was disabled, and announced, once.
    expect(notices(ops, victim).map((n) => n.type)).toEqual(['subscriber.disabled', 'subscriber.enabled']);
  }, 90_000);
});
