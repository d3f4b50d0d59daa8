import {
  CE_HEADER,
  dlqTopicName,
  HS_HEADER,
  noticesTopicName,
  retryTopicName,
  subscriberGroupId,
} from '@hookstream/contracts';
import { SampleReceiver } from '@hookstream/receiver';
import { describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, startCatalogFleet, subscribersCli } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { freePort } from '../support/ports.ts';
import { sample, scrape } from '../support/prometheus.ts';
import { spawnPusherCli } from '../support/pusher-process.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { endpoints } from '../support/stack.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receiver = new SampleReceiver();
const h = HS_HEADER;

/** Records of a topic's partition 0 that Kafka still holds, by its high watermark. */
async function high(topic: string): Promise<number> {
  const [p] = (await fx.admin.topicOffsets(topic)) ?? [];
  return Number(p?.high ?? 0);
}

/**
 * Issue 25, item 1: a subscriber whose ledger is below the log start (retention deleted what it
 * had not read; DeleteRecords stands in for retention) records the gap as one `lost` dead letter,
 * counts it, logs it and announces it, then goes on from the log start; a later restart neither
 * refuses with LEDGER_LOST nor counts the gap again.
 */
describe('gaps are evidence, never silence', () => {
  openForSuite(fx, factory, receiver);

  it('events topic: 5 delivered, stopped, 20 more of which retention deletes 15: one lost record of 15, the 5 left delivered, counter, log line and notice; a restart adds nothing', async () => {
    const topic = await fx.topic(1);
    const name = uniqueName('gap');
    // Notices are not this subscriber's types: the receiver sees only events.
    const definition = { name, url: `${receiver.url}/hooks`, eventTypes: ['shipment.updated'] };
    const before = Array.from({ length: 5 }, () => factory.event());
    const first5 = await spawnPusherCli(topic, definition);
    await fx.produce(topic, factory, before);
    await waitFor('the first 5 delivered and committed', async () =>
      before.every((e) => receiver.hasAccepted(name, e.id)) && (await fx.ledger(name, topic)) === 5
        ? true
        : undefined,
    );
    expect(await first5.stop()).toBe(0);

    const after = Array.from({ length: 20 }, () => factory.event());
    await fx.produce(topic, factory, after);
    await fx.admin.deleteRecordsBefore(topic, 0, 20);

    // A short session: after the crash below, the group need not wait 30 s for the dead member.
    const pusher = await spawnPusherCli(topic, definition, {
      metricsPort: await freePort(),
      args: ['--session-timeout', '6000'],
    });
    const left = after.slice(15);
    await waitFor('the 5 left delivered', async () =>
      left.every((e) => receiver.hasAccepted(name, e.id)) ? true : undefined,
    );
    for (const e of after.slice(0, 15)) expect(receiver.hasAccepted(name, e.id)).toBe(false);

    const [gap] = await fx.readTopic(dlqTopicName(name), 1);
    expect(gap?.key).toBe(`lost:${topic}:0:5`);
    expect(gap?.value).toBeNull();
    expect(gap?.headers[h.eventId]).toBeUndefined();
    expect(gap?.headers).toMatchObject({
      [h.deadLetterReason]: 'lost',
      [h.subscriber]: name,
      [h.originTopic]: topic,
      [h.originPartition]: '0',
      [h.lostFrom]: '5',
      [h.lostTo]: '19',
      [h.lostCount]: '15',
    });
    expect(gap?.headers[h.policyVersion]).toMatch(/\S/);
    expect(Date.parse(gap?.headers[h.lastCommitAt] ?? '')).toBeLessThanOrEqual(
      Date.parse(gap?.headers[h.deadLetteredAt] ?? ''),
    );

    const text = await scrape(pusher.metricsUrl ?? '');
    expect(sample(text, 'hookstream_pusher_lost_events_total', { subscriber: name })).toBe(15);
    const line = pusher
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"events lost'));
    // pino's error level.
    expect(line).toMatch(/"level":50/);
    expect(line).toContain('"lostCount":15');

    // The tools show it, and a replay skips it, saying why.
    const env = { ...process.env, KAFKA_BROKERS: endpoints.brokers.join(',') };
    const listed = await runCli(['dlq', 'list', '--subscriber', name, '--reason', 'lost', '--json'], env);
    expect(listed.code).toBe(0);
    const list = JSON.parse(listed.stdout) as { deadLetters: { reason: string; lost: unknown }[] };
    expect(list.deadLetters).toEqual([
      expect.objectContaining({
        reason: 'lost',
        lost: expect.objectContaining({ topic, partition: 0, lostFrom: '5', lostTo: '19', lostCount: 15 }),
      }),
    ]);
    const replay = await runCli(['dlq', 'replay', '--subscriber', name, '--dry-run', '--json'], env);
    expect(replay.code).toBe(0);
    const planned = JSON.parse(replay.stdout) as { replayed: unknown[]; unreplayable: { detail: string }[] };
    expect(planned.replayed).toEqual([]);
    expect(planned.unreplayable.map((u) => u.detail)).toEqual([
      expect.stringMatching(/^a lost range \(15 records of .+:0, offsets 5\.\.19\): retention deleted them/),
    ]);

    const notices = await fx.readTopic(noticesTopicName(topic), 1);
    const notice = notices.find(
      (n) => n.headers[CE_HEADER.id] === `subscriber.events_lost:${name}:lost:${topic}:0:5`,
    );
    expect(notice?.headers[CE_HEADER.type]).toBe('subscriber.events_lost');

    // The ledger moved past the gap; a crash and a restart find a ledger (no LEDGER_LOST: the
    // start would refuse and exit) and no gap: the DLQ still holds the one record.
    await waitFor('the ledger at the end', async () =>
      (await fx.ledger(name, topic)) === 25 ? true : undefined,
    );
    await pusher.crash();
    const again = await spawnPusherCli(topic, definition);
    expect(again.output()).not.toContain('LEDGER_LOST');
    await again.stop();
    expect(await high(dlqTopicName(name))).toBe(1);
    expect(again.output()).not.toContain('events lost');
  }, 60_000);

  it('retry tier: records waiting in tier 1 that retention deletes while the pusher is down are one lost record; the one left is delivered when due', async () => {
    const failing = new SampleReceiver({ behaviour: { failTimes: 1, failStatus: 503 } });
    await failing.listen();
    try {
      const topic = await fx.topic(1);
      const name = uniqueName('tiergap');
      const tier = retryTopicName(name, 1);
      const definition = {
        name,
        url: `${failing.url}/hooks`,
        eventTypes: ['shipment.updated'],
        retry: { delaysMs: [12_000], maxAttempts: 3, maxAgeMs: 3_600_000, jitter: 0 },
      };
      const events = Array.from({ length: 3 }, () => factory.event());
      const first = await spawnPusherCli(topic, definition);
      await fx.produce(topic, factory, events);
      await waitFor('3 records waiting in tier 1', async () => ((await high(tier)) === 3 ? true : undefined));
      await waitFor('the events ledger past them', async () =>
        (await fx.ledger(name, topic)) === 3 ? true : undefined,
      );
      expect(await first.stop()).toBe(0);
      // The tier's ledger is below them all (none was due); retention takes the first two.
      const [tierLedger] = await fx.admin.committedOffsets(subscriberGroupId(name), tier);
      expect(tierLedger?.offset ?? '0').toBe('0');
      await fx.admin.deleteRecordsBefore(tier, 0, 2);

      const pusher = await spawnPusherCli(topic, definition, { metricsPort: await freePort() });
      const [gap] = await fx.readTopic(dlqTopicName(name), 1);
      expect(gap?.key).toBe(`lost:${tier}:0:0`);
      expect(gap?.headers).toMatchObject({
        [h.deadLetterReason]: 'lost',
        [h.originTopic]: tier,
        [h.lostFrom]: '0',
        [h.lostTo]: '1',
        [h.lostCount]: '2',
      });
      const text = await scrape(pusher.metricsUrl ?? '');
      expect(sample(text, 'hookstream_pusher_lost_events_total', { subscriber: name })).toBe(2);
      await waitFor(
        'the record left in the tier delivered when due',
        async () => (events.filter((e) => failing.hasAccepted(name, e.id)).length === 1 ? true : undefined),
        { timeoutMs: 30_000 },
      );
      expect(await pusher.stop()).toBe(0);
    } finally {
      await failing.close();
    }
  }, 60_000);

  it('a paused subscriber of a fleet, the fleet redeployed, retention deletes 15 of the 20 waiting: resume delivers the 5 left, and subscribers show lists the gap', async () => {
    const topic = await fx.topic(1);
    const prefix = uniqueName('gapfleet');
    const name = `${prefix}-a`;
    const { env, secretsKey } = catalogEnv(topic);
    await applyDefinitions(env, [
      {
        name,
        url: `${receiver.url}/hooks`,
        eventTypes: ['shipment.updated'],
        start: 'earliest',
        allowPrivateNetwork: true,
      },
    ]);
    const running = (f: Awaited<ReturnType<typeof startCatalogFleet>>) =>
      f.entries().some((e) => e.name === name && e.state === 'running');
    const first = await startCatalogFleet({ topic, prefix, secretsKey });
    const before = Array.from({ length: 5 }, () => factory.event());
    try {
      await waitFor('the subscriber running', async () => (running(first) ? true : undefined));
      await fx.produce(topic, factory, before);
      await waitFor('the first 5 delivered and committed', async () =>
        before.every((e) => receiver.hasAccepted(name, e.id)) && (await fx.ledger(name, topic)) === 5
          ? true
          : undefined,
      );
      await subscribersCli(env, 'pause', name, '--reason', 'redeploy');
      await waitFor('the paused subscriber to stop', async () => (running(first) ? undefined : true));
    } finally {
      await first.stop();
    }
    const after = Array.from({ length: 20 }, () => factory.event());
    await fx.produce(topic, factory, after);
    await fx.admin.deleteRecordsBefore(topic, 0, 20);

    const second = await startCatalogFleet({ topic, prefix, secretsKey });
    try {
      await subscribersCli(env, 'resume', name);
      await waitFor('the 5 left delivered', async () =>
        after.slice(15).every((e) => receiver.hasAccepted(name, e.id)) ? true : undefined,
      );
      for (const e of after.slice(0, 15)) expect(receiver.hasAccepted(name, e.id)).toBe(false);
      const shown = await subscribersCli<{ gaps: unknown[] }>(env, 'show', name, '--topic', topic, '--json');
      expect(shown.gaps).toEqual([
        expect.objectContaining({ topic, partition: 0, lostFrom: '5', lostTo: '19', lostCount: 15 }),
      ]);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
