import { ATTEMPT_LOG_TOPIC, type AttemptLogEntry, subscriberGroupId } from '@hookstream/contracts';
import { createKafka, RecordSender } from '@hookstream/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-ledger', quiet: true });
const sender = new RecordSender(kafka);
const eventsTopic = uniqueName('events-ledger');
const billing = uniqueName('lg-billing');
const crm = uniqueName('lg-crm');
const names = ['delivered', 'retrying', 'dead', 'filtered', 'ahead', 'behind'] as const;
const ids = Object.fromEntries(names.map((n) => [n, uniqueName(`evt-${n}`)])) as Record<
  (typeof names)[number],
  string
>;
const T0 = Date.now() - 60_000;
const at = (n: number) => new Date(T0 + n * 1000).toISOString();
const dueLater = new Date(Date.now() + 3_600_000).toISOString();

interface Line {
  subscriber: string;
  origin: { topic: string; partition: number; offset: string } | null;
  ledger: Record<string, unknown>;
}

async function ledger(
  eventId: string,
  ...args: string[]
): Promise<{ origin: unknown; foundIn: string; subscribers: Line[] }> {
  const run = await runCli(['ledger', eventId, '--topic', eventsTopic, '--json', ...args], process.env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

beforeAll(async () => {
  // One partition, so "above/below the committed offset" is set by publishing order alone.
  await createTopic(eventsTopic, 1);
  const admin = kafka.admin();
  await admin.connect();
  // The pusher creates the attempt log; on a stack where none ran yet, the test does.
  await admin.ensureTopics([
    {
      topic: ATTEMPT_LOG_TOPIC,
      partitions: 6,
      replicationFactor: 1,
      config: { 'retention.ms': String(7 * 86_400_000), 'cleanup.policy': 'delete' },
    },
  ]);
  await sender.connect();
  const positions = await sender.send(
    eventsTopic,
    names.map((n) => ({
      key: `k-${n}`,
      value: Buffer.from(n),
      headers: { ce_id: ids[n], ce_type: 'shipment.updated' },
    })),
  );
  const origin = (n: (typeof names)[number]) => {
    const p = positions[names.indexOf(n)];
    return { topic: eventsTopic, partition: p?.partition ?? 0, offset: p?.offset ?? '0' };
  };
  const entry = (
    n: (typeof names)[number],
    e: Partial<AttemptLogEntry> & Pick<AttemptLogEntry, 'step'>,
  ): AttemptLogEntry => ({
    eventId: ids[n],
    subscriber: billing,
    attempt: 1,
    at: at(1),
    origin: origin(n),
    source: origin(n),
    ...e,
  });
  const entries: AttemptLogEntry[] = [
    entry('delivered', { step: 'retry-scheduled', tier: 1, dueAt: at(2), outcome: 'http_503', status: 503 }),
    entry('delivered', { step: 'delivered', attempt: 2, at: at(3), status: 204, durationMs: 12 }),
    entry('retrying', { step: 'retry-scheduled', tier: 2, dueAt: dueLater, attempt: 2, at: at(4) }),
    entry('dead', { step: 'dead-lettered', deadLetterReason: 'terminal', status: 410, at: at(5) }),
    entry('filtered', { step: 'filtered', attempt: 0, at: at(6) }),
    // crm delivered "delivered" too: the ledger answers per subscriber.
    entry('delivered', { step: 'delivered', subscriber: crm, at: at(7), status: 200 }),
  ];
  await sender.send(
    ATTEMPT_LOG_TOPIC,
    entries.map((e) => ({ key: e.eventId, value: Buffer.from(JSON.stringify(e)), headers: {} })),
  );
  // Publishing order: delivered, retrying, dead, filtered, ahead, behind. billing has committed
  // up to "ahead" (so "ahead" and "behind" are not reached); crm has committed past all of them.
  await admin.commitOffsets(subscriberGroupId(billing), eventsTopic, [
    { partition: 0, offset: origin('ahead').offset },
  ]);
  await admin.commitOffsets(subscriberGroupId(crm), eventsTopic, [
    { partition: 0, offset: String(Number(origin('behind').offset) + 1) },
  ]);
  await admin.disconnect();
});

afterAll(async () => {
  await sender.disconnect();
});

describe('hookstream ledger', () => {
  it('delivered: when, which attempt, which status (from the attempt log)', async () => {
    const out = await ledger(ids.delivered, '--subscriber', billing);
    expect(out.foundIn).toBe('attempt-log');
    expect(out.subscribers).toEqual([
      expect.objectContaining({
        subscriber: billing,
        ledger: { state: 'delivered', at: at(3), attempt: 2, status: 204 },
      }),
    ]);
  });

  it('waiting in retry tier n, due when', async () => {
    const out = await ledger(ids.retrying, '--subscriber', billing);
    expect(out.subscribers[0]?.ledger).toEqual({
      state: 'retrying',
      tier: 2,
      dueAt: dueLater,
      attempt: 2,
      replayed: false,
    });
  });

  it('dead-lettered with its reason; filtered out', async () => {
    expect((await ledger(ids.dead, '--subscriber', billing)).subscribers[0]?.ledger).toMatchObject({
      state: 'dead-lettered',
      reason: 'terminal',
      status: 410,
    });
    expect((await ledger(ids.filtered, '--subscriber', billing)).subscribers[0]?.ledger).toEqual({
      state: 'filtered',
      at: at(6),
    });
  });

  it('not reached: no attempt, its offset is at the committed offset (found by scanning the events topic)', async () => {
    const out = await ledger(ids.ahead, '--subscriber', billing);
    expect(out.foundIn).toBe('events-topic');
    expect(out.subscribers[0]?.ledger).toMatchObject({ state: 'not-reached' });
  });

  it('every subscriber group gets a line: one passed the event, the other has not reached it', async () => {
    const out = await ledger(ids.behind);
    const mine = out.subscribers.filter((l) => l.subscriber === billing || l.subscriber === crm);
    expect(mine.map((l) => [l.subscriber, l.ledger.state])).toEqual([
      [billing, 'not-reached'],
      [crm, 'passed-without-record'],
    ]);
    // And one event, two subscribers, two different answers from the attempt log.
    const both = await ledger(ids.delivered);
    const states = Object.fromEntries(both.subscribers.map((l) => [l.subscriber, l.ledger]));
    expect(states[crm]).toMatchObject({ state: 'delivered', status: 200 });
    expect(states[billing]).toMatchObject({ state: 'delivered', status: 204 });
  });

  it('prints a table for people, and exits 1 for an event it cannot find', async () => {
    const run = await runCli(
      ['ledger', ids.retrying, '--topic', eventsTopic, '--subscriber', billing],
      process.env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`${billing}\\s+retrying\\s+in retry tier 2, due ${dueLater}`));
    const missing = await runCli(['ledger', uniqueName('evt-nowhere'), '--topic', eventsTopic], process.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('neither in hookstream.attempts nor in the events topic');
    const bad = await runCli(['ledger', 'has space'], process.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<event-id>');
  });
});
