import { retryTopicName, subscriberGroupId } from '@hookstream/contracts';
import type { FleetProcess } from '@hookstream/pusher';
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
const DAY_MS = 86_400_000;
const COUNT = 10;

interface Shown {
  readonly unlistedTiers: readonly { tier: number; topic: string; waiting: number }[];
}

describe('a retry schedule changed while records wait in its tiers', () => {
  openForSuite(fx, factory, receivers);
  let fleet: FleetProcess | undefined;
  afterAll(async () => {
    await fleet?.stop();
  });

  it('grown then shrunk: every waiting record is read from its tier and delivered; retention follows', async () => {
    // Three failures per event: one from the events topic, one from tier 1, one from tier 2.
    const endpoint = await receivers.start({ behaviour: { failTimes: 3, failStatus: 503 } });
    const topic = await fx.topic(1);
    const prefix = uniqueName('tier-schedule');
    const name = `${prefix}-a`;
    const { env, secretsKey } = catalogEnv(topic);
    const definition = (delaysMs: number[], maxAgeMs: number) => ({
      name,
      url: endpoint.url,
      start: 'earliest',
      allowPrivateNetwork: true,
      // Every record walks its tiers: an open breaker would hold the attempts the test counts.
      breaker: { enabled: false },
      retry: { delaysMs, maxAttempts: 6, jitter: 0, maxAgeMs },
    });
    const tier = (n: number) => retryTopicName(name, n);
    const tierEnd = async (n: number) => fx.end(tier(n)).catch(() => 0);
    const failed = (n: number) => async () => (endpoint.stats().failed >= n ? true : undefined);

    await applyDefinitions(env, [definition([8000], 8 * DAY_MS)]);
    fleet = await startCatalogFleet({ topic, prefix, secretsKey });
    const events = Array.from({ length: COUNT }, () => factory.event());
    await fx.produce(topic, factory, events);
    await waitFor('every first attempt to fail into tier 1', failed(COUNT));
    await waitFor('ten records in tier 1', async () => ((await tierEnd(1)) === COUNT ? true : undefined));

    // Grown: tier 2 does not exist until a record needs it; tier 1 must be read meanwhile.
    // Tier 2's delay outlasts the apply and the `show` below (each a CLI run reading the catalog),
    // so the show finds its records still waiting.
    await applyDefinitions(env, [definition([8000, 20_000], 8 * DAY_MS)]);
    await waitFor('every second attempt (from tier 1) to fail into tier 2', failed(2 * COUNT), {
      timeoutMs: 30_000,
    });
    // Written after the answer: the failure is counted first.
    await waitFor('ten records in tier 2', async () => ((await tierEnd(2)) === COUNT ? true : undefined));

    // Shrunk: tier 2 leaves the definition while it holds all ten; a longer age ceiling too.
    await applyDefinitions(env, [definition([500], 9 * DAY_MS)]);
    const draining = await subscribersCli<Shown>(env, 'show', name, '--json');
    expect(draining.unlistedTiers.map((t) => t.topic)).toEqual([tier(2)]);
    expect(draining.unlistedTiers[0]?.waiting).toBeGreaterThan(0);

    await waitFor(
      'all ten delivered',
      async () => (events.every((e) => endpoint.hasAccepted(name, e.id)) ? true : undefined),
      { timeoutMs: 30_000 },
    );
    // Attempt 3 (from tier 2) failed into tier 1 by the current schedule; attempt 4 delivered.
    expect(endpoint.stats().failed).toBe(3 * COUNT);
    expect(endpoint.stats().accepted).toBe(COUNT);
    expect(await tierEnd(1)).toBe(2 * COUNT);
    expect(await tierEnd(2)).toBe(COUNT);
    await waitFor('tier 2 drained in the ledger', async () => {
      const [lag] = await fx.admin.groupLag(subscriberGroupId(name), [tier(2)]);
      return lag?.lag === 0 ? true : undefined;
    });
    const drained = await subscribersCli<Shown>(env, 'show', name, '--json');
    expect(drained.unlistedTiers).toEqual([{ tier: 2, topic: tier(2), waiting: 0 }]);
    const table = await subscribersCli<string>(env, 'show', name);
    expect(table).toMatch(
      new RegExp(
        `tiers no longer in the definition[^\\n]*\\n.*waiting\\n[- ]+\\n2 +${tier(2).replaceAll('.', '\\.')} +0`,
      ),
    );

    // Tier 1's retention follows the new age ceiling and longest delay; tier 2 keeps its own.
    const retention = async (n: number) => (await fx.admin.topicConfig(tier(n)))?.['retention.ms'];
    expect(await retention(1)).toBe(String(9 * DAY_MS + 500));
    expect(await retention(2)).toBe(String(8 * DAY_MS + 20_000));
  }, 90_000);
});
