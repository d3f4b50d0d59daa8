import { ATTEMPT_LOG_TOPIC, attemptEntriesOf, subscriberGroupId } from '@hookstream/contracts';
import { readTopic } from '@hookstream/kafka';
import type { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { SubscriberCatalog } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAttemptLog } from '../support/attempt-log.ts';
import { applyDefinitions, catalogEnv, startRunningCatalogFleet } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

// Issue 28 item 2, last part, on the real stack: a rewind leaves its mark in the attempt log. The
// rewind's commit carries who and when (and the ledger it moved back from) in the ledger's
// metadata; the fleet reads it at the join, marks the steps of every record it sends again below
// that offset, and carries the mark forward in its own commits, so a fleet restarted mid-range
// marks the rest; past the range, the mark is gone. `hookstream ledger` says it.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const fleets: FleetProcess[] = [];
let endpoint: SampleReceiver;

/** How many times the endpoint accepted each event for the subscriber. */
const accepted = (name: string, events: readonly TestEvent[]) =>
  events.map(
    (e) =>
      endpoint.arrivals.filter((a) => a.subscriptionId === name && a.eventId === e.id && a.status === 204)
        .length,
  );

/** The attempt log's entries of these events for the subscriber, in the log's order. */
async function attemptEntries(name: string, events: readonly TestEvent[], sinceMs: number) {
  const ids = new Set(events.map((e) => e.id));
  const read = await readTopic(fx.kafka, {
    topic: ATTEMPT_LOG_TOPIC,
    from: { timestampMs: sinceMs },
    purpose: 'test-rewind-marker',
  });
  return read
    .flatMap((r) => attemptEntriesOf(r.value).entries)
    .filter((e) => ids.has(e.eventId) && e.subscriber === name);
}

/** Waits until each event has `counts[i]` delivered steps in the attempt log; returns them by event. */
async function deliveredSteps(name: string, events: readonly TestEvent[], counts: number[], sinceMs: number) {
  return waitFor(
    `the attempt log's delivered steps of ${name}`,
    async () => {
      const entries = (await attemptEntries(name, events, sinceMs)).filter((e) => e.step === 'delivered');
      const byEvent = events.map((e) => entries.filter((x) => x.eventId === e.id));
      return byEvent.every((steps, i) => steps.length >= (counts[i] ?? 0)) ? byEvent : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
}

const ledgerOf = async (name: string, topic: string) =>
  (await fx.admin.committedOffsets(subscriberGroupId(name), topic))[0];

async function rewind(env: NodeJS.ProcessEnv, name: string, ...args: string[]): Promise<void> {
  const run = await runCli(['subscribers', 'rewind', name, ...args, '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ applied: true });
}

describe("a rewind's mark in the attempt log", () => {
  beforeAll(async () => {
    await fx.connect();
    await ensureAttemptLog(fx.admin);
    await factory.init();
    endpoint = await receivers.start();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(fleets.map((f) => f.stop().catch(() => undefined)));
    await fx.close();
    await receivers.closeAll();
  });

  it('the steps of the events it sends again say who rewound and when; the first deliveries and later events do not; ledger shows it', async () => {
    const topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('rwmark');
    const name = `${prefix}-a`;
    const startedAt = Date.now();
    await applyDefinitions(env, [
      { name, url: endpoint.url, start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 1000 } },
    ]);
    fleets.push(await startRunningCatalogFleet({ topic, prefix, secretsKey }, 1));
    // One partition: offsets 0..5 in this order.
    const before = Array.from({ length: 6 }, () => factory.event());
    await fx.produce(topic, factory, before);
    await fx.settledEverything(name, topic);

    const rewoundAt = Date.now();
    await rewind(env, name, '--to', '0:2', '--by', 'alice');
    const again = before.slice(2);
    await waitFor('the events from offset 2 delivered again', async () =>
      accepted(name, again).every((n) => n === 2) ? true : undefined,
    );
    const after = Array.from({ length: 2 }, () => factory.event());
    await fx.produce(topic, factory, after);
    await fx.settledEverything(name, topic);
    expect(accepted(name, [...before, ...after])).toEqual([1, 1, 2, 2, 2, 2, 1, 1]);

    const steps = await deliveredSteps(name, [...before, ...after], [1, 1, 2, 2, 2, 2, 1, 1], startedAt);
    // Every first delivery, of the rewound range too, has no mark; every second one has it.
    for (const [i, delivered] of steps.entries()) {
      const [first, second] = delivered;
      expect(first?.rewind, `${i}: first delivery`).toBeUndefined();
      if (i < 2 || i >= 6) expect(delivered, `${i}: delivered once`).toHaveLength(1);
      else {
        expect(second?.rewind?.by, `${i}: sent again`).toBe('alice');
        expect(Date.parse(second?.rewind?.at ?? '')).toBeGreaterThanOrEqual(rewoundAt - 1000);
        expect(second?.attempt).toBe(1);
      }
    }
    // Past the range, the fleet's commits dropped the mark.
    expect(await ledgerOf(name, topic)).toMatchObject({ offset: '8' });
    expect((await ledgerOf(name, topic))?.rewind).toBeUndefined();

    const id = before[3]?.id ?? '';
    const json = await runCli(['ledger', id, '--topic', topic, '--subscriber', name, '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).subscribers[0].ledger).toMatchObject({
      state: 'delivered',
      attempt: 1,
      status: 204,
      rewind: { by: 'alice' },
    });
    const text = await runCli(['ledger', id, '--topic', topic, '--subscriber', name], env);
    expect(text.stdout).toMatch(/attempt 1, status 204 \(sent again by a rewind by alice at \S+\)/);
    const untouched = await runCli(
      ['ledger', after[0]?.id ?? '', '--topic', topic, '--subscriber', name],
      env,
    );
    expect(untouched.stdout).not.toContain('rewind');
  }, 150_000);

  it('a fleet restarted mid-range reads the mark its commits carried forward, and marks the rest', async () => {
    const topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('rwmark');
    const name = `${prefix}-b`;
    const startedAt = Date.now();
    // Two a second: the ledger moves through the range slowly enough to stop the fleet inside it.
    await applyDefinitions(env, [
      { name, url: endpoint.url, start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 2 } },
    ]);
    const first = await startRunningCatalogFleet({ topic, prefix, secretsKey }, 1);
    fleets.push(first);
    const events = Array.from({ length: 8 }, () => factory.event());
    await fx.produce(topic, factory, events);
    await waitFor(
      'the first deliveries',
      async () => ((await fx.ledger(name, topic)) === 8 ? true : undefined),
      {
        timeoutMs: 30_000,
      },
    );

    // Paused, the rewind's commit stays as it wrote it: the mark is in the ledger's metadata.
    const paused = await runCli(['subscribers', 'pause', name, '--reason', 'rewind marker test'], env);
    expect(paused.code, paused.stderr).toBe(0);
    await waitFor('the fleet to leave the paused group', async () =>
      (await new SubscriberCatalog(fx.kafka).groupEmptied(name, 1000)) ? true : undefined,
    );
    await rewind(env, name, '--to', 'earliest', '--by', 'bob');
    const mark = (await ledgerOf(name, topic))?.rewind;
    expect(await ledgerOf(name, topic)).toMatchObject({ offset: '0', rewind: { untilOffset: 8, by: 'bob' } });

    const resumed = await runCli(['subscribers', 'resume', name], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    // Inside the range, the fleet's own commits carry the mark.
    await waitFor(
      'the ledger inside the rewound range, still marked',
      async () => {
        const l = await ledgerOf(name, topic);
        const at = Number(l?.offset ?? -1);
        return at >= 2 && at <= 5 && l?.rewind !== undefined ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    await first.stop();
    const stoppedAt = await ledgerOf(name, topic);
    expect(Number(stoppedAt?.offset)).toBeLessThan(8);
    expect(stoppedAt?.rewind).toEqual(mark);

    const restartedAt = Date.now();
    fleets.push(await startRunningCatalogFleet({ topic, prefix, secretsKey }, 1));
    await waitFor('the rest of the range delivered again', async () =>
      (await fx.ledger(name, topic)) === 8 ? true : undefined,
    );
    const steps = await deliveredSteps(name, events, Array(8).fill(2), startedAt);
    const sentAgain = steps.map((delivered) => delivered.at(-1));
    // Every event's last delivery is the rewind's, marked, whichever fleet made it.
    expect(sentAgain.map((e) => e?.rewind?.by)).toEqual(Array(8).fill('bob'));
    const byRestarted = sentAgain.filter((e) => Date.parse(e?.at ?? '') >= restartedAt);
    expect(byRestarted.length).toBeGreaterThanOrEqual(8 - Number(stoppedAt?.offset));
    expect(byRestarted.map((e) => Number(e?.origin?.offset))).toEqual(
      expect.arrayContaining([Number(stoppedAt?.offset)]),
    );
    // Past the range: no mark.
    await waitFor('the ledger past the range, unmarked', async () =>
      (await ledgerOf(name, topic))?.rewind === undefined ? true : undefined,
    );
  }, 150_000);
});
