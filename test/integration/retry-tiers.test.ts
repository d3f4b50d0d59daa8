import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeadLetterEvidence,
  dlqTopicName,
  HS_HEADER,
  RetryState,
  readHsHeaders,
  retryTopicName,
} from '@hookstream/contracts';
import type { ConsumedRecord } from '@hookstream/kafka';
import { describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();

const dueAt = (r: ConsumedRecord) => Date.parse(RetryState.parse(readHsHeaders(r.headers)).dueAt);

describe('retry tiers and the DLQ against the real stack', () => {
  openForSuite(fx, factory, receivers);

  it('500, 500, then 200: delivered on attempt 3 through tiers 1 and 2, never before due', async () => {
    const endpoint = await receivers.start({ behaviour: { failTimes: 2, failStatus: 500 } });
    const topic = await fx.topic(1);
    const e = factory.event();
    await fx.produce(topic, factory, [e]);
    const name = uniqueName('tiers');
    await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      retry: { delaysMs: [700, 1500], maxAttempts: 5, maxAgeMs: 3_600_000, jitter: 0.2 },
    });
    await waitFor('attempt 3', async () => (endpoint.stats().accepted === 1 ? true : undefined));
    const arrivals = endpoint.arrivals;
    expect(arrivals.map((a) => [a.eventId, a.status, a.body?.attempt])).toEqual([
      [e.id, 500, 1],
      [e.id, 500, 2],
      [e.id, 204, 3],
    ]);
    const [tier1] = await fx.readTopic(retryTopicName(name, 1), 1);
    const [tier2] = await fx.readTopic(retryTopicName(name, 2), 1);
    if (!tier1 || !tier2) throw new Error('unreachable');
    // Each tier record's due time is the base delay (plus up to 20 % jitter) after the failure,
    // and the next attempt never starts before it.
    const [a1, a2, a3] = arrivals.map((a) => a.atMs);
    expect(dueAt(tier1) - (a1 ?? 0)).toBeGreaterThanOrEqual(700 - 50);
    expect(a2).toBeGreaterThanOrEqual(dueAt(tier1));
    expect(dueAt(tier2) - (a2 ?? 0)).toBeGreaterThanOrEqual(1500 - 50);
    expect(a3).toBeGreaterThanOrEqual(dueAt(tier2));
    expect(RetryState.parse(readHsHeaders(tier2.headers))).toMatchObject({
      eventId: e.id,
      attempts: 2,
      status: 500,
      outcome: 'server-error',
      origin: { topic, partition: 0, offset: '0' },
    });
    // The tier record is the original record moved on: same key, value and event headers.
    expect(tier2.key).toBe(e.key);
    expect(tier2.headers.traceparent).toBe(e.traceparent);
    await fx.settledEverything(name, topic);
  });

  it('a 400 goes straight to the DLQ with every piece of evidence', async () => {
    const endpoint = await receivers.start({ behaviour: { fixedStatus: 400 } });
    const topic = await fx.topic(1);
    const e = factory.event();
    await fx.produce(topic, factory, [e]);
    const original = await factory.message(e);
    const name = uniqueName('dlq400');
    await fx.startPusher(topic, { name, url: endpoint.url });
    const [dead] = await fx.readTopic(dlqTopicName(name), 1);
    if (!dead) throw new Error('unreachable');
    expect(endpoint.arrivals).toHaveLength(1);
    expect(dead.key).toBe(e.key);
    // The value bytes are the original ones (Avro in the registry's wire format).
    expect(dead.value?.subarray(5)).toEqual(original.value.subarray(5));
    expect(dead.headers).toMatchObject({ ce_id: e.id, ce_type: e.type, traceparent: e.traceparent });
    const evidence = DeadLetterEvidence.parse(readHsHeaders(dead.headers));
    expect(evidence).toMatchObject({
      eventId: e.id,
      subscriber: name,
      reason: 'terminal',
      attempts: 1,
      outcomeClass: 'terminal',
      outcome: 'client-error',
      status: 400,
      origin: { topic, partition: 0, offset: '0' },
      source: { topic, partition: 0, offset: '0' },
    });
    expect(evidence.policyVersion).toMatch(/^\d{4}-\d{2}-\d+$/);
    expect(evidence.firstAttemptAt).toBeDefined();
    expect(evidence.lastAttemptAt).toBe(evidence.firstAttemptAt);
    expect(Date.parse(evidence.deadLetteredAt)).toBeGreaterThanOrEqual(
      Date.parse(evidence.firstAttemptAt ?? ''),
    );
    await fx.settledEverything(name, topic);
  });

  it('an endpoint that always fails exhausts maxAttempts into the DLQ', async () => {
    const endpoint = await receivers.start({ behaviour: { fixedStatus: 503 } });
    const topic = await fx.topic(1);
    const e = factory.event();
    await fx.produce(topic, factory, [e]);
    const name = uniqueName('exhaust');
    await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      retry: { delaysMs: [200, 300], maxAttempts: 4, maxAgeMs: 3_600_000, jitter: 0 },
    });
    const [dead] = await fx.readTopic(dlqTopicName(name), 1);
    if (!dead) throw new Error('unreachable');
    expect(endpoint.arrivals.map((a) => a.body?.attempt)).toEqual([1, 2, 3, 4]);
    expect(DeadLetterEvidence.parse(readHsHeaders(dead.headers))).toMatchObject({
      eventId: e.id,
      reason: 'exhausted',
      attempts: 4,
      status: 503,
      outcome: 'server-error',
      origin: { topic, offset: '0' },
      // The last try came from tier 2 (the last tier repeats as the cap).
      source: { topic: retryTopicName(name, 2) },
    });
  });

  it('an event older than maxAgeMs is dead-lettered as expired, never delivered late', async () => {
    const endpoint = await receivers.start();
    const topic = await fx.topic(1);
    const old = { ...factory.event(), occurredAt: new Date(Date.now() - 2 * 3_600_000).toISOString() };
    const fresh = factory.event();
    await fx.produce(topic, factory, [old, fresh]);
    const name = uniqueName('expired');
    await fx.startPusher(topic, {
      name,
      url: endpoint.url,
      retry: { delaysMs: [200], maxAttempts: 3, maxAgeMs: 3_600_000, jitter: 0 },
    });
    const [dead] = await fx.readTopic(dlqTopicName(name), 1);
    if (!dead) throw new Error('unreachable');
    expect(DeadLetterEvidence.parse(readHsHeaders(dead.headers))).toMatchObject({
      eventId: old.id,
      reason: 'expired',
      attempts: 0,
    });
    await fx.settledEverything(name, topic);
    expect(endpoint.arrivals.map((a) => a.eventId)).toEqual([fresh.id]);
  });

  it('kill -9 while records wait in a tier: nothing lost, nothing delivered before due', async () => {
    const endpoint = await receivers.start({ behaviour: { failTimes: 1, failStatus: 503 } });
    const topic = await fx.topic(3);
    const events = Array.from({ length: 30 }, () => factory.event());
    await fx.produce(topic, factory, events);
    const name = uniqueName('tiercrash');
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-tiers-'));
    const config = join(dir, `${name}.json`);
    await writeFile(
      config,
      JSON.stringify({
        name,
        url: endpoint.url,
        start: 'earliest',
        allowPrivateNetwork: true,
        retry: { delaysMs: [6000], maxAttempts: 3, jitter: 0 },
        // Every first attempt fails on purpose: an open breaker would hold them instead of tiering.
        breaker: { enabled: false },
      }),
    );
    // The broker's shortest session: the restart waits for the killed member's to time out.
    const args = ['push', '--config', config, '--topic', topic, '--session-timeout', '6000'];
    const first = spawnCli(args);
    // Every first attempt failed and every record now waits in tier 1.
    const waiting = await fx.readTopic(retryTopicName(name, 1), events.length, 60_000);
    // Their handover to the tier is in the ledger, so only the tier holds their future.
    await fx.settledEverything(name, topic);
    expect(endpoint.stats().accepted).toBe(0);
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');

    const second = spawnCli(args);
    try {
      await waitFor(
        'every event accepted',
        async () => (endpoint.stats().accepted === events.length ? true : undefined),
        { timeoutMs: 60_000 },
      );
    } finally {
      second.kill('SIGTERM');
      await exited(second);
    }
    const due = new Map(waiting.map((r) => [r.headers[HS_HEADER.eventId], dueAt(r)]));
    for (const e of events) {
      expect(endpoint.hasAccepted(name, e.id)).toBe(true);
      const second = endpoint.arrivals.find((a) => a.eventId === e.id && a.status === 204);
      expect(second?.atMs).toBeGreaterThanOrEqual(due.get(e.id) ?? Number.POSITIVE_INFINITY);
    }
  }, 120_000);
});
