import { hostname } from 'node:os';
import {
  HS_HEADER,
  replayLogTopicName,
  replayTransactionalId,
  retryTopicName,
  subscriberGroupId,
} from '@hookstream/contracts';
import { replayDeadLetters } from '@hookstream/dead-letter-tools';
import { readTopic, TransactionalWriter } from '@hookstream/kafka';
import type { SampleReceiver } from '@hookstream/receiver';
import { DlqSelection, leaseRecord, leaseRelease } from '@hookstream/replay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const name = uniqueName('lease');
const tier1 = retryTopicName(name, 1);
const DEAD_LETTERS = 20;

interface Summary {
  replayId: string;
  replayed: { eventId: string }[];
  alreadyReplayed: { eventId: string; detail: string }[];
}

/** A replay of every dead letter of the subscriber, paced so that two runs overlap. */
const replayArgs = (operator: string, ...more: string[]) => [
  'dlq',
  'replay',
  '--subscriber',
  name,
  '--rate',
  '10',
  '--operator',
  operator,
  '--json',
  ...more,
];

let receiver: SampleReceiver;
let events: TestEvent[];

/** Tier 1 as the subscriber reads it (committed records only), and its group's ledger there. */
async function tierState() {
  const records = await readTopic(fx.kafka, { topic: tier1 });
  const committed = await fx.admin.committedOffsets(subscriberGroupId(name), tier1);
  const settled = records.every(
    (r) => BigInt(committed.find((c) => c.partition === r.partition)?.offset ?? '-1') > BigInt(r.offset),
  );
  return { records, settled };
}

/** Arrivals at the fixed receiver after `from`, counted per event id. */
function arrivalsById(from: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const a of receiver.arrivals.slice(from))
    if (a.eventId !== null) counts.set(a.eventId, (counts.get(a.eventId) ?? 0) + 1);
  return counts;
}

beforeAll(async () => {
  await fx.connect();
  await factory.init();
  const topic = await fx.topic(3);
  events = Array.from({ length: DEAD_LETTERS }, () => factory.event());
  receiver = await receivers.start({ behaviour: { fixedStatus: 422 } });
  await fx.produce(topic, factory, events);
  await fx.startPusher(topic, { name, url: receiver.url, concurrency: 20 });
  await waitFor(`${DEAD_LETTERS} dead letters`, async () => {
    const run = await runCli(['dlq', 'list', '--subscriber', name, '--json'], process.env);
    return run.code === 0 && (JSON.parse(run.stdout) as { count: number }).count === DEAD_LETTERS
      ? true
      : undefined;
  });
  receiver.setBehaviour({ fixedStatus: null });
}, 120_000);

afterAll(async () => {
  await fx.close();
  await receivers.closeAll();
});

describe('one replay at a time per subscriber, across processes', () => {
  it('two replays started together deliver each dead letter once; the loser names the holder', async () => {
    const before = receiver.arrivals.length;
    const runs = await Promise.all([
      runCli(replayArgs('ops-ann'), process.env),
      runCli(replayArgs('ops-ben'), process.env),
    ]);
    const winners = runs.filter((r) => r.code === 0);
    const losers = runs.filter((r) => r.code !== 0);
    expect(winners, runs.map((r) => r.stderr).join('\n')).toHaveLength(1);
    expect(losers).toHaveLength(1);
    const won = JSON.parse(winners[0]?.stdout ?? '') as Summary;
    const lost = losers[0]?.stderr ?? '';
    // Refused before writing, or fenced mid-way by the winner: either way it names the holder.
    expect(lost).toMatch(/REPLAY_LEASE_HELD|REPLAY_FENCED/);
    expect(lost).toContain(won.replayId);
    expect(lost).toMatch(/by ops-(ann|ben) on .+ \(pid \d+, hookstream dlq replay\)/);
    // What the loser wrote before it was fenced, the winner skipped.
    expect(won.replayed.length + won.alreadyReplayed.length).toBe(DEAD_LETTERS);

    const ids = events.map((e) => e.id).sort();
    const { records } = await waitFor('the subscriber to settle all of tier 1', async () => {
      const state = await tierState();
      return state.settled ? state : undefined;
    });
    expect(records.map((r) => r.headers.ce_id).sort()).toEqual(ids);
    await waitFor('every replayed event at the receiver', async () =>
      events.every((e) => receiver.hasAccepted(name, e.id)) ? true : undefined,
    );
    const counts = arrivalsById(before);
    expect([...counts.keys()].sort()).toEqual(ids);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);

    // The lease was given back, and the log knows every record: a third run sends nothing.
    const third = await runCli(replayArgs('ops-cat'), process.env);
    expect(third.code, third.stderr).toBe(0);
    expect((JSON.parse(third.stdout) as Summary).alreadyReplayed).toHaveLength(DEAD_LETTERS);
  }, 90_000);

  it('refuses a second run at once while one holds the lease, writing nothing', async () => {
    // The holder is this process, so it holds the lease for as long as the check takes: a run
    // of the CLI could end before a second one, slow to start on a busy machine, looked.
    const holder = new TransactionalWriter(fx.kafka, { transactionalId: replayTransactionalId(name) });
    const log = replayLogTopicName(name);
    const lease = leaseRecord(
      {
        subscriber: name,
        replayId: 'rpl_test-holder',
        operator: 'ops-dan',
        host: hostname(),
        pid: process.pid,
        tool: 'cli',
      },
      Date.now(),
      Date.now(),
    );
    await holder.connect();
    try {
      await holder.transaction(async (txn) =>
        txn.send(log, [{ key: lease.key, value: lease.value, headers: {} }]),
      );
      const { records: before } = await tierState();
      const second = await runCli(replayArgs('ops-eve', '--again'), process.env);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        /REPLAY_LEASE_HELD: another replay of .+ is running: rpl_test-holder by ops-dan on .+ \(pid \d+, hookstream dlq replay\) since .+, lease until .+\. Nothing was written/,
      );
      expect(second.stderr).toContain('(transient: running it again may succeed)');
      const { records: after } = await tierState();
      expect(after).toHaveLength(before.length);
      expect(after.every((r) => r.headers[HS_HEADER.replayedBy] !== 'ops-eve')).toBe(true);
      await holder.transaction(async (txn) => txn.send(log, [{ ...leaseRelease(), headers: {} }]));
    } finally {
      await holder.disconnect();
    }
  }, 60_000);

  it('two --again runs started together replay each dead letter once more, not twice', async () => {
    const runs = await Promise.all([
      runCli(replayArgs('ops-fay', '--again'), process.env),
      runCli(replayArgs('ops-gus', '--again'), process.env),
    ]);
    // Whether the later run was refused, fenced or found nothing left is timing; what tier 1 got is not.
    expect(runs.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    for (const r of runs.filter((r) => r.code !== 0))
      expect(r.stderr).toMatch(/REPLAY_LEASE_HELD|REPLAY_FENCED/);
    const { records } = await tierState();
    expect(records).toHaveLength(2 * DEAD_LETTERS);
    const third = records.filter((r) =>
      ['ops-fay', 'ops-gus'].includes(r.headers[HS_HEADER.replayedBy] ?? ''),
    );
    expect(third.map((r) => r.headers.ce_id).sort()).toEqual(events.map((e) => e.id).sort());
  }, 60_000);

  it('replay once: three --again runs of the same selection started together deliver each dead letter exactly once — five rounds, 0 duplicates in each', async () => {
    const ids = events.map((e) => e.id).sort();
    for (let round = 1; round <= 5; round++) {
      const { records: before } = await tierState();
      const arrived = receiver.arrivals.length;
      const [ann, ben, cat] = ['ops-hal', 'ops-ivy', 'ops-jon'].map((o) => `${o}-${round}`) as [
        string,
        string,
        string,
      ];
      // All three are asked for now; the third gets going only once the others ended, as a run
      // slowed down by a busy machine does (its CLI would pass its process's start the same way).
      const askedAtMs = Date.now();
      const runs = await Promise.all([
        runCli(replayArgs(ann, '--again'), process.env),
        runCli(replayArgs(ben, '--again'), process.env),
      ]);
      const why = runs.map((r) => r.stderr).join('\n');
      expect(runs.filter((r) => r.code === 0).length, why).toBeGreaterThanOrEqual(1);
      for (const r of runs.filter((r) => r.code !== 0))
        expect(r.stderr).toMatch(/REPLAY_LEASE_HELD|REPLAY_FENCED/);
      const late = await replayDeadLetters(fx.kafka, {
        subscriber: name,
        selection: DlqSelection.parse({}),
        again: true,
        dryRun: false,
        operator: cat,
        askedAtMs,
      });
      expect(late.replayed, `round ${round}: the late run resent what the others replayed`).toEqual([]);
      const { records } = await waitFor(`round ${round}: the subscriber to settle tier 1`, async () => {
        const state = await tierState();
        return state.settled ? state : undefined;
      });
      const added = records.filter((r) => [ann, ben, cat].includes(r.headers[HS_HEADER.replayedBy] ?? ''));
      expect(records.length - before.length, `round ${round}: ${why}`).toBe(DEAD_LETTERS);
      expect(added.map((r) => r.headers.ce_id).sort(), `round ${round}`).toEqual(ids);
      await waitFor(`round ${round}: every replayed event at the receiver`, async () =>
        arrivalsById(arrived).size === DEAD_LETTERS ? true : undefined,
      );
      const counts = arrivalsById(arrived);
      expect([...counts.keys()].sort(), `round ${round}`).toEqual(ids);
      expect(
        [...counts.entries()].filter(([, n]) => n !== 1),
        `round ${round}: duplicates`,
      ).toEqual([]);
    }
    // Five rounds of two CLI starts each: seconds with the caches warm, minutes beside a fresh
    // machine's helm and Jaeger builds. The file's budget, not this bound, holds its time.
  }, 300_000);
});
