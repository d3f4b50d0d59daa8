import { subscriberGroupId } from '@hookstream/contracts';
import type { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDefinitions } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const retry = { delaysMs: [200, 60_000], maxAttempts: 5, maxAgeMs: 3_600_000, jitter: 0 };

async function cliJson<T>(...args: string[]): Promise<T> {
  const run = await runCli([...args, '--json'], process.env, 60_000);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

interface LedgerLine {
  subscriber: string;
  ledger: { state: string } & Record<string, unknown>;
}
const ledgerOf = async (topic: string, e: TestEvent) =>
  Object.fromEntries(
    (await cliJson<{ subscribers: LedgerLine[] }>('ledger', e.id, '--topic', topic)).subscribers.map((l) => [
      l.subscriber,
      l.ledger,
    ]),
  );

/**
 * The whole path with real pushers: dead letters from a broken endpoint, fixed, replayed by
 * selection; what the ledger says for each state along the way.
 */
describe('dead letters replayed to a real pusher, and the ledger of each state', () => {
  const names = {
    broken: uniqueName('rp-broken'),
    healthy: uniqueName('rp-healthy'),
    picky: uniqueName('rp-picky'),
    slow: uniqueName('rp-slow'),
    behind: uniqueName('rp-behind'),
  };
  let topic: string;
  let events: TestEvent[];
  let broken: SampleReceiver;
  let healthy: SampleReceiver;

  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    topic = await fx.topic(1);
    events = [factory.event(), factory.event(), factory.event()];
    broken = await receivers.start({ behaviour: { fixedStatus: 422 } });
    healthy = await receivers.start();
    const flaky = await receivers.start({ behaviour: { fixedStatus: 503 } });
    const picky = await receivers.start();
    await fx.produce(topic, factory, events);
    await fx.startPusher(topic, { name: names.broken, url: broken.url, retry });
    await fx.startPusher(topic, { name: names.healthy, url: healthy.url, retry });
    // In the catalog too: the ledger judges a subscriber that passed an event without a step by
    // its catalog definition (pushers log no step for events of types they do not take).
    const pickyDefinition = { name: names.picky, url: picky.url, eventTypes: ['student.enrolled'] };
    await applyDefinitions({ ...process.env, HOOKSTREAM_EVENTS_TOPIC: topic }, [
      { ...pickyDefinition, allowPrivateNetwork: true },
    ]);
    await fx.startPusher(topic, pickyDefinition);
    // Fails once, then waits a minute in tier 2: "retrying" for the rest of this file.
    await fx.startPusher(topic, { name: names.slow, url: flaky.url, retry });
    // A subscriber whose ledger sits before the events: it has not reached them.
    await fx.admin.commitOffsets(subscriberGroupId(names.behind), topic, [{ partition: 0, offset: '0' }]);
    await waitFor('three dead letters', async () =>
      (await cliJson<{ count: number }>('dlq', 'list', '--subscriber', names.broken)).count === 3
        ? true
        : undefined,
    );
    await waitFor('healthy got all three', async () => (healthy.stats().accepted === 3 ? true : undefined));
    // Passing over records of other types moves a ledger within 10 s, not at once.
    const end = await fx.end(topic);
    await waitFor('picky passed all three', async () =>
      (await fx.ledger(names.picky, topic)) === end ? true : undefined,
    );
    await waitFor('slow waiting in tier 2', async () => {
      const l = await ledgerOf(topic, events[0] as TestEvent);
      return l[names.slow]?.state === 'retrying' && l[names.slow]?.tier === 2 ? true : undefined;
    });
  }, 120_000);

  afterAll(async () => {
    await runCli(['subscribers', 'delete', names.picky], { ...process.env, HOOKSTREAM_EVENTS_TOPIC: topic });
    await fx.close();
    await receivers.closeAll();
  });

  it('the ledger tells each subscriber apart: delivered, dead-lettered, filtered, retrying, not reached', async () => {
    const [first] = events;
    if (!first) throw new Error('unreachable');
    const l = await ledgerOf(topic, first);
    expect(l[names.healthy]).toMatchObject({ state: 'delivered', attempt: 1, status: 204 });
    expect(l[names.broken]).toMatchObject({ state: 'dead-lettered', reason: 'terminal', status: 422 });
    expect(l[names.picky]).toMatchObject({ state: 'filtered' });
    expect(l[names.slow]).toMatchObject({ state: 'retrying', tier: 2, attempt: 2 });
    expect(l[names.behind]).toMatchObject({ state: 'not-reached' });
  });

  it('replays a selection once after the fix, with the same webhook-id; nobody else sees it', async () => {
    const [a, b, c] = events;
    if (!a || !b || !c) throw new Error('unreachable');
    broken.setBehaviour({ fixedStatus: null });
    const before = { broken: broken.arrivals.length, healthy: healthy.stats().received };

    const selection = ['dlq', 'replay', '--subscriber', names.broken, '--event-id', a.id, '--event-id', b.id];
    const dry = await cliJson<{ replayed: { eventId: string }[] }>(...selection, '--dry-run');
    // In DLQ order, which for records in flight together is not promised: compared as sets.
    expect(dry.replayed.map((r) => r.eventId).sort()).toEqual([a.id, b.id].sort());
    const first = await cliJson<{ replayed: { eventId: string }[] }>(...selection);
    expect(first.replayed.map((r) => r.eventId).sort()).toEqual([a.id, b.id].sort());
    await waitFor('both replayed events accepted', async () =>
      broken.hasAccepted(names.broken, a.id) && broken.hasAccepted(names.broken, b.id) ? true : undefined,
    );
    const second = await cliJson<{ replayed: unknown[]; alreadyReplayed: unknown[] }>(...selection);
    expect(second.replayed).toHaveLength(0);
    expect(second.alreadyReplayed).toHaveLength(2);

    // The dry run sent nothing and the second replay sent nothing: exactly two new requests,
    // one per selected event, each carrying the event's own id and a fresh attempt budget.
    await waitFor('the ledger to show the replayed event delivered', async () =>
      (await ledgerOf(topic, a))[names.broken]?.state === 'delivered' ? true : undefined,
    );
    const replayed = broken.arrivals.slice(before.broken);
    expect(replayed.map((r) => r.eventId).sort()).toEqual([a.id, b.id].sort());
    for (const r of replayed) {
      expect(r.headers?.['webhook-id']).toBe(r.eventId);
      expect(r.status).toBe(204);
      expect(r.body?.attempt).toBe(1);
    }
    expect(broken.hasAccepted(names.broken, c.id)).toBe(false);
    expect(healthy.stats().received).toBe(before.healthy);
  });
});
