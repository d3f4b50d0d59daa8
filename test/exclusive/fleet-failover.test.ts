import type { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, subscribersCli } from '../support/catalog.ts';
import { exited, spawnCli } from '../support/child.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const prefix = uniqueName('failover');
const names = [0, 1, 2].map((i) => `${prefix}-${i}`);

/** `joined group` lines of a fleet's output: how many group joins it made. */
function joins(output: string): number {
  return output.split('\n').filter((l) => l.includes('"msg":"joined group"')).length;
}

/** Subscribers whose latest join gave this instance some partitions of the events topic. */
function holding(output: string): number {
  const latest = new Map<string, number>();
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"joined group"')) continue;
    const entry = JSON.parse(line) as { groupId: string; assignment: Record<string, number[]> };
    latest.set(entry.groupId, Object.values(entry.assignment).flat().length);
  }
  return [...latest.values()].filter((n) => n > 0).length;
}

describe('two fleet instances sharing the registry', () => {
  let endpoint: SampleReceiver;
  let topic = '';
  let env: NodeJS.ProcessEnv = {};
  const children: ReturnType<typeof spawnCli>[] = [];

  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    topic = await fx.topic(6);
    ({ env } = catalogEnv(topic));
    endpoint = await receivers.start();
    await applyDefinitions(
      env,
      names.map((name) => ({
        name,
        url: endpoint.url,
        start: 'earliest',
        allowPrivateNetwork: true,
        rate: { perSecond: 1000 },
        concurrency: 4,
      })),
    );
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children.map((c) => exited(c)));
    await fx.close();
    await receivers.closeAll();
  });

  const sameEverywhere = (lists: readonly (readonly string[])[], expected: readonly string[]) =>
    lists.every((l) => JSON.stringify(l) === JSON.stringify([...expected].sort()));

  const everyoneHas = (events: readonly TestEvent[]) =>
    names.every((name) => events.every((e) => endpoint.hasAccepted(name, e.id)));

  it('kill -9 of one instance moves its work to the other within the session timeout; nothing is lost', async () => {
    const args = ['push', '--all', '--match', `${prefix}-*`, '--topic', topic, '--session-timeout', '6000'];
    const instances = [`${prefix}-doomed`, `${prefix}-survivor`];
    children.push(...instances.map((instance) => spawnCli([...args, '--instance', instance], env)));
    const [doomed, survivor] = children;
    if (!doomed || !survivor) throw new Error('unreachable');
    const warmup = Array.from({ length: 12 }, () => factory.event());
    await fx.produce(topic, factory, warmup);
    await waitFor(
      'both instances to deliver the warm-up',
      async () => (everyoneHas(warmup) ? true : undefined),
      {
        timeoutMs: 60_000,
      },
    );
    // Each subscriber's group spreads the topic's partitions over both instances.
    await waitFor('both instances to hold partitions of every subscriber', async () =>
      [doomed, survivor].every((c) => holding(c.output()) === names.length) ? true : undefined,
    );
    const joinsBefore = joins(survivor.output());
    // What the instances report: `subscribers list` names both for every subscriber.
    await waitFor('subscribers list to show both instances on every subscriber', async () =>
      sameEverywhere(await listedInstances(), instances) ? true : undefined,
    );

    const events = Array.from({ length: 150 }, () => factory.event());
    const writing = (async () => {
      for (let i = 0; i < events.length; i += 10) {
        await fx.produce(topic, factory, events.slice(i, i + 10));
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    await waitFor('deliveries under way', async () =>
      names.some((name) => events.some((e) => endpoint.hasAccepted(name, e.id))) ? true : undefined,
    );
    doomed.kill('SIGKILL');
    expect((await exited(doomed)).signal).toBe('SIGKILL');
    await writing;
    await waitFor(
      'every event delivered to every subscriber by the survivor',
      async () => (everyoneHas(events) ? true : undefined),
      { timeoutMs: 45_000 },
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\nsurvivor output:\n${survivor.output().slice(-4000)}`);
    });
    // The survivor took the dead instance's partitions over: each group rejoined.
    expect(joins(survivor.output())).toBeGreaterThanOrEqual(joinsBefore + names.length);
    for (const name of names) await fx.settledEverything(name, topic);
    // The killed instance wrote no tombstone; its report goes stale and drops out of the list.
    await waitFor('subscribers list to show the survivor only', async () =>
      sameEverywhere(await listedInstances(), [`${prefix}-survivor`]) ? true : undefined,
    );
  }, 150_000);

  /** Per subscriber of this test, the instances `subscribers list --json` says run it. */
  const listedInstances = async () => {
    const listed = await subscribersCli<{ subscribers: { name: string; instances: string[] }[] }>(
      env,
      'list',
      '--json',
    );
    return names.map((name) => listed.subscribers.find((s) => s.name === name)?.instances ?? []);
  };
});
