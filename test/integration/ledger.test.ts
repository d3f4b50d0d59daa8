import {
  ATTEMPT_LOG_TOPIC,
  type AttemptLogEntry,
  type RecordLocation,
  subscriberGroupId,
} from '@hookstream/contracts';
import { queryLedger } from '@hookstream/dead-letter-tools';
import { createKafka, RecordSender } from '@hookstream/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAttemptLog } from '../support/attempt-log.ts';
import { applyDefinitions, catalogEnv, subscribersCli } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic } from '../support/topic.ts';

const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-ledger', quiet: true });
const sender = new RecordSender(kafka);
const eventsTopic = uniqueName('events-ledger');
const billing = uniqueName('lg-billing');
const crm = uniqueName('lg-crm');
// In the catalog, unlike billing and crm: picky does not take shipment.updated, wide does.
const picky = uniqueName('lg-picky');
const wide = uniqueName('lg-wide');
const names = ['delivered', 'retrying', 'dead', 'filtered', 'logged-late', 'ahead', 'behind'] as const;
const ids = Object.fromEntries(names.map((n) => [n, uniqueName(`evt-${n}`)])) as Record<
  (typeof names)[number],
  string
>;
const T0 = Date.now() - 60_000;
const at = (n: number) => new Date(T0 + n * 1000).toISOString();
const dueLater = new Date(Date.now() + 3_600_000).toISOString();
const { env: catalog } = catalogEnv(eventsTopic);
let pastAll = '';
/** Where each event's record is, as the portal's index would name it. */
const origins = new Map<string, RecordLocation>();

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
  await ensureAttemptLog(admin);
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
    // A step logged long after the record was written (clocks apart): the ledger must still find
    // the record's type for picky, reading the partition from its start when a later start misses.
    entry('logged-late', { step: 'delivered', at: dueLater, status: 200 }),
    // crm delivered "delivered" too: the ledger answers per subscriber.
    entry('delivered', { step: 'delivered', subscriber: crm, at: at(7), status: 200 }),
  ];
  await sender.send(
    ATTEMPT_LOG_TOPIC,
    entries.map((e) => ({ key: e.eventId, value: Buffer.from(JSON.stringify(e)), headers: {} })),
  );
  // Publishing order as in names. billing has committed up to "ahead" (so "ahead" and "behind"
  // are not reached); crm, picky and wide have committed past all of them.
  for (const n of names) origins.set(ids[n], origin(n));
  pastAll = String(Number(origin('behind').offset) + 1);
  await admin.commitOffsets(subscriberGroupId(billing), eventsTopic, [
    { partition: 0, offset: origin('ahead').offset },
  ]);
  for (const name of [crm, picky, wide])
    await admin.commitOffsets(subscriberGroupId(name), eventsTopic, [{ partition: 0, offset: pastAll }]);
  await admin.disconnect();
  // No attempt log step says picky filtered anything (pushers log none): its definition does.
  const common = { url: 'https://ledger-test.example.com/in', start: 'latest' };
  await applyDefinitions(catalog, [
    { ...common, name: picky, eventTypes: ['key.revoked'] },
    { ...common, name: wide, eventTypes: ['key.revoked', 'shipment.updated'] },
  ]);
});

afterAll(async () => {
  await sender.disconnect();
  for (const name of [picky, wide]) await subscribersCli(catalog, 'delete', name);
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

  it('dead-lettered with its reason', async () => {
    expect((await ledger(ids.dead, '--subscriber', billing)).subscribers[0]?.ledger).toMatchObject({
      state: 'dead-lettered',
      reason: 'terminal',
      status: 410,
    });
  });

  it('filtered out without an attempt log step: past the committed offset, a type its catalog definition does not take', async () => {
    const filtered = { state: 'filtered', at: null, eventType: 'shipment.updated', committed: pastAll };
    // No step for anyone: the type comes from the record the events-topic scan found.
    const scanned = await ledger(ids.filtered, '--subscriber', picky);
    expect(scanned.foundIn).toBe('events-topic');
    expect(scanned.subscribers[0]?.ledger).toEqual(filtered);
    // Others' steps name the location: the type comes from reading the record there.
    const logged = await ledger(ids.delivered, '--subscriber', picky);
    expect(logged.foundIn).toBe('attempt-log');
    expect(logged.subscribers[0]?.ledger).toEqual(filtered);
    expect((await ledger(ids['logged-late'], '--subscriber', picky)).subscribers[0]?.ledger).toEqual(
      filtered,
    );
    // A definition that takes the type: passed without a record, as before.
    expect((await ledger(ids.filtered, '--subscriber', wide)).subscribers[0]?.ledger).toEqual({
      state: 'passed-without-record',
      committed: pastAll,
    });
  });

  it('not reached: no attempt, its offset is at the committed offset (found by scanning the events topic)', async () => {
    const out = await ledger(ids.ahead, '--subscriber', billing);
    expect(out.foundIn).toBe('events-topic');
    expect(out.subscribers[0]?.ledger).toMatchObject({ state: 'not-reached' });
  });

  it('every subscriber group gets a line: one passed the event, the other has not reached it', async () => {
    const out = await ledger(ids.behind);
    const ours = [billing, crm, picky, wide];
    const mine = out.subscribers.filter((l) => ours.includes(l.subscriber));
    expect(mine.map((l) => [l.subscriber, l.ledger.state])).toEqual([
      [billing, 'not-reached'],
      [crm, 'passed-without-record'],
      [picky, 'filtered'],
      [wide, 'passed-without-record'],
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
    const judged = await runCli(
      ['ledger', ids.filtered, '--topic', eventsTopic, '--subscriber', picky],
      process.env,
    );
    expect(judged.code).toBe(0);
    expect(judged.stdout).toMatch(
      new RegExp(
        `${picky}\\s+filtered\\s+its eventTypes do not take shipment\\.updated \\(offset \\d+ < committed ${pastAll};`,
      ),
    );
    const missing = await runCli(['ledger', uniqueName('evt-nowhere'), '--topic', eventsTopic], process.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('neither in hookstream.attempts nor in the events topic');
    const bad = await runCli(['ledger', 'has space'], process.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<event-id>');
  });
});

describe('the ledger query told where the record is (the API, for a message the portal index holds)', () => {
  const ours = [billing, crm, picky, wide];
  // The answer without otherGroups: it counts every subscriber group on the shared stack, which
  // files running beside this one add and delete between two queries.
  const ask = async (eventId: string, knownOrigin?: RecordLocation) => {
    const {
      otherGroups: _others,
      subscribers,
      ...answer
    } = await queryLedger(kafka, {
      eventId,
      eventsTopic,
      ...(knownOrigin === undefined ? {} : { knownOrigin }),
    });
    return { ...answer, subscribers: subscribers.filter((l) => ours.includes(l.subscriber)) };
  };

  it('answers as the whole read does: steps, a step logged late, and no step at all', async () => {
    for (const n of ['delivered', 'logged-late', 'filtered'] as const) {
      const bounded = await ask(ids[n], origins.get(ids[n]));
      const whole = await ask(ids[n]);
      expect(bounded, n).toEqual(whole);
      expect(bounded.origin, n).toEqual(origins.get(ids[n]));
      expect(bounded.subscribers.length, n).toBeGreaterThan(0);
    }
  });

  it("reads as without it when the location holds another event's record", async () => {
    // No step names where "filtered" is: only the events-topic scan finds its record.
    const elsewhere = await ask(ids.filtered, origins.get(ids.delivered));
    expect(elsewhere).toEqual(await ask(ids.filtered));
    expect(elsewhere.origin).toEqual(origins.get(ids.filtered));
  });
});
