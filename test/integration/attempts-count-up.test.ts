import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dlqTopicName, HS_HEADER, retryTopicName } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { attemptsByEvent } from '../support/arrivals.ts';
import { exited, spawnCli } from '../support/child.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const EVENTS = 200;
const KILL_TRIES = 4;

interface KilledRun {
  readonly name: string;
  readonly topic: string;
  readonly args: readonly string[];
  readonly ledgerAtKill: number;
  readonly copiedAtKill: number;
}

/**
 * A pusher of a new subscriber (every attempt fails, one retry tier, then the DLQ) killed -9 the
 * moment it says a copy to tier 1 is acknowledged; with what its ledger and tier held then.
 */
async function killAfterFirstCopy(url: string, events: readonly TestEvent[]): Promise<KilledRun> {
  const topic = await fx.topic(1);
  const name = uniqueName('onechain');
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-onechain-'));
  const config = join(dir, `${name}.json`);
  await writeFile(
    config,
    JSON.stringify({
      name,
      url,
      start: 'earliest',
      allowPrivateNetwork: true,
      // Attempt 1 from the events topic, attempt 2 from tier 1, then the DLQ.
      retry: { delaysMs: [1500], maxAttempts: 2, jitter: 0 },
      // Every attempt fails on purpose: an open breaker would hold records instead of tiering.
      breaker: { enabled: false },
    }),
  );
  // The broker's shortest session: the restart waits for the killed member's to time out.
  const args = ['push', '--config', config, '--topic', topic, '--session-timeout', '6000'];
  const first = spawnCli(args);
  // The ledger commits about every second, so copies are downstream while their records are
  // still above the ledger, unless the output reaches this process late.
  first.stdout?.on('data', (chunk: Buffer) => {
    if (chunk.toString().includes('retry scheduled')) first.kill('SIGKILL');
  });
  await waitFor('the pusher to start', async () =>
    first.output().includes('pusher started') ? true : undefined,
  );
  await fx.produce(topic, factory, events);
  expect((await exited(first)).signal).toBe('SIGKILL');
  return {
    name,
    topic,
    args,
    ledgerAtKill: await fx.ledger(name, topic),
    copiedAtKill: await fx.end(retryTopicName(name, 1)),
  };
}

describe('attempts count up within one delivery chain', () => {
  openForSuite(fx, factory, receivers);

  it(`${EVENTS} events answered 500 on their first request: each delivered once, as attempt 1 then attempt 2, with no topic made and no rejoin at the first failure`, async () => {
    const endpoint = await receivers.start({ behaviour: { failTimes: 1, failStatus: 500 } });
    const topic = await fx.topic(3);
    const events = Array.from({ length: EVENTS }, () => factory.event());
    await fx.produce(topic, factory, events);
    const name = uniqueName('countup');
    // A brand-new subscriber: its tiers and DLQ are made at its start, before its group joins.
    const { logs } = await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      concurrency: 16,
      rate: { perSecond: 10_000, burst: 0 },
      retry: { delaysMs: [300, 600], maxAttempts: 5, maxAgeMs: 3_600_000, jitter: 0 },
      // The default breaker: ten failures in a row open it, so records that made their first
      // attempt are held in place (what once sent attempt 1 twice, at the tier rejoin).
    });
    await waitFor(
      'every event accepted',
      async () => (events.every((e) => endpoint.hasAccepted(name, e.id)) ? true : undefined),
      { timeoutMs: 90_000 },
    );
    await fx.settledEverything(name, topic);

    const byEvent = attemptsByEvent(endpoint.arrivals);
    const forked = [...byEvent].filter(([, attempts]) =>
      attempts.some((a, i) => i > 0 && a <= (attempts[i - 1] ?? 0)),
    );
    expect(
      forked,
      JSON.stringify({
        forked: forked.slice(0, 5),
        log: logs.filter((l) => l.level !== 'debug').map((l) => l.message),
      }),
    ).toEqual([]);
    const notOneThenTwo = events.filter((e) => JSON.stringify(byEvent.get(e.id)) !== '[1,2]');
    expect(notOneThenTwo.map((e) => byEvent.get(e.id))).toEqual([]);
    const said = logs.map((l) => l.message);
    expect(said).toContain('breaker open');
    // The topics came before the group's one join, and nothing joined again after a failure.
    expect(said.indexOf('created subscriber topics')).toBeGreaterThanOrEqual(0);
    expect(said.indexOf('created subscriber topics')).toBeLessThan(said.indexOf('joined group'));
    expect(said.filter((m) => m === 'joined group')).toHaveLength(1);
    expect(said.filter((m) => m === 'created subscriber topics')).toHaveLength(1);
    expect(logs.filter((l) => l.level === 'fatal')).toEqual([]);
  }, 180_000);

  it('kill -9 right after "retry scheduled": after the restart one retry chain per event, one dead letter each', async () => {
    const endpoint = await receivers.start({ behaviour: { fixedStatus: 503 } });
    const events = Array.from({ length: 10 }, () => factory.event());
    // The kill must land before the ledger covers the copies (the case the restart has to
    // recognize); a kill that comes after a commit exercises nothing, so that setup is repeated
    // on a fresh subscriber, a bounded number of times.
    const tries: string[] = [];
    let killed: KilledRun | null = null;
    while (killed === null && tries.length < KILL_TRIES) {
      const run = await killAfterFirstCopy(endpoint.url, events);
      tries.push(`ledger ${run.ledgerAtKill}, copies ${run.copiedAtKill}`);
      if (run.copiedAtKill > run.ledgerAtKill) killed = run;
    }
    if (killed === null)
      throw new Error(`every kill came after the ledger covered the copies: ${tries.join('; ')}`);
    const { name, topic, args, ledgerAtKill, copiedAtKill } = killed;

    const second = spawnCli(args);
    try {
      // Every event settled, and every tier record (each is in the DLQ now). The killed member
      // holds its partitions until its session times out (6 s), so the restart waits that long.
      for (const settledTopic of [topic, retryTopicName(name, 1)])
        await waitFor(
          `${settledTopic} settled`,
          async () =>
            (await fx.ledger(name, settledTopic)) === (await fx.end(settledTopic)) ? true : undefined,
          { timeoutMs: 90_000 },
        );
    } catch (err) {
      throw new Error(`${err instanceof Error ? err.message : String(err)}\n${second.output()}`);
    } finally {
      second.kill('SIGTERM');
      await exited(second);
    }
    const tier = await fx.readTopic(retryTopicName(name, 1), events.length);
    const dead = await fx.readTopic(dlqTopicName(name), events.length);
    const count = (records: typeof dead) => {
      const byEvent = new Map<string, number>();
      for (const r of records) {
        const id = r.headers[HS_HEADER.eventId] ?? '?';
        byEvent.set(id, (byEvent.get(id) ?? 0) + 1);
      }
      return byEvent;
    };
    const expected = new Map(events.map((e) => [e.id, 1]));
    expect(
      { tier: count(tier), dlq: count(dead) },
      `ledger at the kill: ${ledgerAtKill}; copies in tier 1 then: ${copiedAtKill}`,
    ).toEqual({ tier: expected, dlq: expected });
  }, 240_000);
});
