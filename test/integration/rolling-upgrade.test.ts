import { retryTopicName } from '@hookstream/contracts';
import type { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptsByEvent } from '../support/arrivals.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { type OldRelease, unpackRelease } from '../support/old-release.ts';
import { type PusherProcess, spawnPusherCli } from '../support/pusher-process.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The last commit whose pusher made a subscriber's retry tiers at its first failure and rejoined
 * its group to read them (docs/deployment.md, "Upgrading past the tier rejoin").
 */
const TIERS_AT_FIRST_FAILURE = '75a208046cb17acefb126e572dcf6e1efad2a0ba';
const BATCH = 40;
/** Long enough that attempt 1's retries still wait in tier 1 when the old instance stops. */
const RETRY_DELAY_MS = 8000;

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
let release: OldRelease;

beforeAll(async () => {
  release = await unpackRelease(TIERS_AT_FIRST_FAILURE);
}, 60_000);
afterAll(async () => {
  await release?.remove();
});

/** Every event of `events` answered 2xx. */
async function accepted(endpoint: SampleReceiver, name: string, events: readonly TestEvent[]): Promise<void> {
  await waitFor(
    `${events.length} events accepted`,
    async () => (events.every((e) => endpoint.hasAccepted(name, e.id)) ? true : undefined),
    { timeoutMs: 60_000 },
  );
}

/** Each event's attempts as they arrived, for the events that did not arrive as exactly `[1, 2]`. */
function notOneThenTwo(endpoint: SampleReceiver, events: readonly TestEvent[]): (number[] | undefined)[] {
  const byEvent = attemptsByEvent(endpoint.arrivals);
  return events.map((e) => byEvent.get(e.id)).filter((a) => JSON.stringify(a) !== '[1,2]');
}

describe('a rolling upgrade from the release that made tiers at the first failure', () => {
  openForSuite(fx, factory, receivers);

  it('old and new instances share one subscriber: every ledger and every waiting retry is kept, each event delivered once, and the old release runs again after', async () => {
    const endpoint = await receivers.start({ behaviour: { failTimes: 1, failStatus: 500 } });
    const topic = await fx.topic(3);
    const name = uniqueName('upgrade');
    const definition = {
      name,
      url: endpoint.url,
      retry: { delaysMs: [RETRY_DELAY_MS], maxAttempts: 4, jitter: 0 },
      // Every first attempt fails on purpose: an open breaker would hold records instead.
      breaker: { enabled: false },
    };
    const args = ['--session-timeout', '6000'];
    const running: PusherProcess[] = [];
    const start = async (bin?: string) => {
      const p = await spawnPusherCli(topic, definition, { args, ...(bin === undefined ? {} : { bin }) });
      running.push(p);
      return p;
    };
    try {
      // The old fleet: its first failures make the tiers and rejoin the group.
      const old = await start(release.bin);
      const waiting = Array.from({ length: BATCH }, () => factory.event());
      await fx.produce(topic, factory, waiting);
      await waitFor('every first attempt made, its retry waiting in tier 1', async () =>
        waiting.every((e) => attemptsByEvent(endpoint.arrivals).get(e.id)?.length === 1) &&
        (await fx.end(retryTopicName(name, 1))) >= BATCH
          ? true
          : undefined,
      );
      expect(old.output()).toContain('rejoined the group with the retry tiers');

      // The new release joins beside it, events arrive while both run, then the old one stops:
      // the retries it wrote wait in tier 1 and the new instance delivers them.
      const upgraded = await start();
      const during = Array.from({ length: BATCH }, () => factory.event());
      await fx.produce(topic, factory, during);
      expect(await old.stop()).toBe(0);
      await accepted(endpoint, name, [...waiting, ...during]);
      expect(notOneThenTwo(endpoint, [...waiting, ...during])).toEqual([]);
      expect(upgraded.output()).not.toContain('created subscriber topics');

      // Going back: the old release reads the tiers that exist from its start, makes none.
      expect(await upgraded.stop()).toBe(0);
      const back = await start(release.bin);
      const after = Array.from({ length: BATCH }, () => factory.event());
      await fx.produce(topic, factory, after);
      await accepted(endpoint, name, after);
      expect(notOneThenTwo(endpoint, [...waiting, ...during, ...after])).toEqual([]);
      await fx.settledEverything(name, topic);
      const tier = retryTopicName(name, 1);
      await waitFor(`${name}'s ledger on ${tier} at its end`, async () =>
        (await fx.ledger(name, tier)) === (await fx.end(tier)) ? true : undefined,
      );
      expect(back.output()).not.toContain('created subscriber topics');
      expect(back.output()).not.toContain('rejoined the group with the retry tiers');
    } finally {
      await Promise.all(running.map((p) => p.stop()));
    }
  }, 240_000);
});
