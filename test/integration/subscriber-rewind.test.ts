import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { auditChainBreaks, readAuditTrail, SubscriberCatalog } from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, startRunningCatalogFleet } from '../support/catalog.ts';
import { exited, spawnCli } from '../support/child.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

// Issue 28 item 2 on the real stack: `hookstream subscribers rewind` re-delivers from the events
// topic, ids unchanged, on a subscriber a running fleet delivers (paused for the move and
// resumed) and on a paused one (it stays paused); the dry run counts per partition what would be
// sent again; a range retention deleted is said, with exit 3; the audit trail holds each rewind.
// The same over the management API (`POST /v1/subscribers/{name}/rewind`, from the CLI's --api).

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const prefix = uniqueName('rewind');
const name = `${prefix}-r`;
let topic = '';
let env: NodeJS.ProcessEnv = {};
let fleet: FleetProcess | undefined;
let endpoint: SampleReceiver;

interface RewindJson {
  applied: boolean;
  pausedForIt: boolean;
  plan: {
    resend: number;
    rangeDeleted: boolean;
    partitions: { partition: number; resend: number; deleted: number | null }[];
  };
}

async function rewind(...args: string[]): Promise<{ code: number; answer: RewindJson; stderr: string }> {
  return rewindWith(env, args);
}

async function rewindWith(
  runEnv: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ code: number; answer: RewindJson; stderr: string }> {
  const run = await runCli(['subscribers', 'rewind', name, ...args, '--json'], runEnv);
  if (run.stdout === '') throw new Error(`rewind ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return { code: run.code, answer: JSON.parse(run.stdout) as RewindJson, stderr: run.stderr };
}

/** How many times the endpoint accepted each event. */
const acceptedCount = (events: readonly TestEvent[]) =>
  events.map(
    (e) =>
      endpoint.arrivals.filter((a) => a.subscriptionId === name && a.eventId === e.id && a.status === 204)
        .length,
  );

const state = async () => (await new SubscriberCatalog(fx.kafka).read()).subscribers.get(name)?.state.kind;

describe('subscribers rewind', () => {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    topic = await fx.topic(2);
    const catalog = catalogEnv(topic);
    env = catalog.env;
    endpoint = await receivers.start();
    await applyDefinitions(env, [
      { name, url: endpoint.url, start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 1000 } },
    ]);
    fleet = await startRunningCatalogFleet({ topic, prefix, secretsKey: catalog.secretsKey }, 1);
  }, 150_000);

  afterAll(async () => {
    await fleet?.stop();
    await fx.close();
    await receivers.closeAll();
  });

  it('re-delivers exactly the events after a time, ids unchanged, on a running subscriber; the dry run counts them', async () => {
    const before = Array.from({ length: 6 }, () => factory.event());
    await fx.produce(topic, factory, before);
    await fx.settledEverything(name, topic);
    // Kafka timestamps are the producer's clock, this one: the time falls between the batches.
    await sleep(20);
    const at = new Date().toISOString();
    await sleep(20);
    const after = Array.from({ length: 6 }, () => factory.event());
    await fx.produce(topic, factory, after);
    await fx.settledEverything(name, topic);
    expect(acceptedCount([...before, ...after])).toEqual(Array(12).fill(1));

    const dry = await rewind('--to', at, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.answer.applied).toBe(false);
    expect(dry.answer.plan.resend).toBe(after.length);
    expect(await fx.ledger(name, topic)).toBe(12);

    const done = await rewind('--to', at);
    expect(done.code, done.stderr).toBe(0);
    expect(done.answer).toMatchObject({
      applied: true,
      pausedForIt: true,
      plan: { resend: 6, rangeDeleted: false },
    });
    await waitFor('the events after the time delivered again', async () =>
      acceptedCount(after).every((n) => n === 2) ? true : undefined,
    );
    await fx.settledEverything(name, topic);
    expect(acceptedCount(before)).toEqual(Array(6).fill(1));
    expect(acceptedCount(after)).toEqual(Array(6).fill(2));
    expect(await state()).toBe('active');
    const trail = await readAuditTrail(fx.kafka, { subscriber: name });
    expect(trail.records.map((r) => r.action)).toEqual(
      expect.arrayContaining(['subscriber.paused', 'subscriber.rewound', 'subscriber.resumed']),
    );
    // The audit chain holds across the rewind: its digest is the paused record's.
    expect(auditChainBreaks(trail.records)).toEqual([]);
  }, 120_000);

  it('rewinds a paused subscriber, which stays paused; says what retention deleted, with exit 3', async () => {
    const paused = await runCli(['subscribers', 'pause', name, '--reason', 'rewind test'], env);
    expect(paused.code, paused.stderr).toBe(0);
    await waitFor('the fleet to leave the paused group', async () =>
      (await new SubscriberCatalog(fx.kafka).groupEmptied(name, 1000)) ? true : undefined,
    );
    // Retention stands in: the first two records of partition 0 are gone.
    const [p0] = (await fx.admin.topicOffsets(topic)) ?? [];
    await fx.admin.deleteRecordsBefore(topic, 0, Number(p0?.low ?? 0) + 2);
    const done = await rewind('--to', '0:0,1:0');
    expect(done.code).toBe(3);
    expect(done.answer.applied).toBe(true);
    expect(done.answer.pausedForIt).toBe(false);
    expect(done.answer.plan.partitions.find((p) => p.partition === 0)?.deleted).toBe(2);
    expect(done.stderr).toContain('retention deleted');
    expect(await state()).toBe('paused');
    expect(await fx.ledger(name, topic)).toBe(2);
    const resumed = await runCli(['subscribers', 'resume', name], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    await fx.settledEverything(name, topic);
  }, 120_000);

  it('rewinds over the API: the dry run counts, the rewind re-delivers with ids unchanged, named in the trail', async () => {
    const token = randomBytes(18).toString('base64url');
    const api = spawnCli(['api', '--port', '0', '--topic', topic], {
      ...env,
      HOOKSTREAM_API_TOKENS: `${token}=*`,
      HOOKSTREAM_API_LOG_LEVEL: 'warn',
    });
    try {
      const base = await waitFor('hookstream api to listen', async () => {
        if (api.exitCode !== null) throw new Error(`hookstream api exited: ${api.output()}`);
        return /hookstream api on (http:\/\/\S+) /.exec(api.output())?.[1];
      });
      await fx.settledEverything(name, topic);
      await sleep(20);
      const at = new Date().toISOString();
      await sleep(20);
      const later = Array.from({ length: 4 }, () => factory.event());
      await fx.produce(topic, factory, later);
      await fx.settledEverything(name, topic);
      expect(acceptedCount(later)).toEqual(Array(4).fill(1));
      const remote = { ...env, HOOKSTREAM_API_TOKEN: token };
      const dry = await rewindWith(remote, ['--to', at, '--dry-run', '--api', base]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.answer).toMatchObject({ applied: false, plan: { resend: 4 } });
      const done = await rewindWith(remote, ['--to', at, '--api', base]);
      expect(done.code, done.stderr).toBe(0);
      expect(done.answer).toMatchObject({ applied: true, pausedForIt: true, plan: { resend: 4 } });
      await waitFor('the events after the time delivered again', async () =>
        acceptedCount(later).every((n) => n === 2) ? true : undefined,
      );
      expect(await state()).toBe('active');
      const trail = await readAuditTrail(fx.kafka, { subscriber: name });
      const rewound = trail.records.filter((r) => r.action === 'subscriber.rewound').at(-1);
      expect(rewound?.actor).toMatchObject({ kind: 'token' });
      // Every change of this file, three rewinds, pauses and resumes among them, in one chain.
      expect(auditChainBreaks(trail.records)).toEqual([]);
    } finally {
      api.kill('SIGTERM');
      await exited(api);
    }
  }, 120_000);
});
