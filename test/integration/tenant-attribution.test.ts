import { CE_HEADER, dlqTopicName, noticesTopicName, subscriberGroupId } from '@hookstream/contracts';
import type { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  catalogEnv,
  handMadeRecord,
  produceRegistryRecords,
  startRunningCatalogFleet,
} from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { readRecords } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Issue 26 item 5 on the real stack: a notice about a tenant's subscriber carries its tenant, so a
// subscriber of that tenant taking '*' receives it and one about another tenant's does not; a
// tenant's event keeps its tenant into the DLQ, `dlq list` and `ledger <id>`. Records go onto the
// catalog directly (see tenant-subscribers.test.ts: apply refuses tenants while older fleets run).

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const prefix = uniqueName('tattr');
const acmeOps = `${prefix}-acme-ops`;
const acmeGone = `${prefix}-acme-gone`;
const globexGone = `${prefix}-globex-gone`;
const acmeBad = `${prefix}-acme-bad`;
const globexAll = `${prefix}-globex-all`;

let fleet: FleetProcess | undefined;
let topic = '';
let steady: SampleReceiver;

async function publish(events: readonly (TestEvent & { tenant: string })[]): Promise<void> {
  const messages = await Promise.all(
    events.map(async (e) => {
      const message = await factory.message(e);
      message.headers[CE_HEADER.tenant] = e.tenant;
      return message;
    }),
  );
  await fx.producer.send({ topic, acks: -1, messages });
}

async function cliJson<T>(...args: string[]): Promise<T> {
  const run = await runCli([...args, '--json'], process.env);
  if (run.code !== 0) throw new Error(`hookstream ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

describe("a tenant's notices, dead letters and ledger name the tenant", () => {
  beforeAll(async () => {
    await fx.connect();
    await factory.init();
    topic = await fx.topic(1);
    const { secretsKey } = catalogEnv(topic);
    steady = await receivers.start();
    const gone = await receivers.start({ behaviour: { failTimes: 1000, failStatus: 410 } });
    const bad = await receivers.start({ behaviour: { failTimes: 1000, failStatus: 400 } });
    const subs = [
      { name: acmeOps, tenant: 'acme', eventTypes: ['*'], url: steady.url },
      { name: acmeGone, tenant: 'acme', eventTypes: ['shipment.updated'], url: gone.url },
      { name: globexGone, tenant: 'globex', eventTypes: ['shipment.updated'], url: gone.url },
      { name: acmeBad, tenant: 'acme', eventTypes: ['key.revoked'], url: bad.url },
      { name: globexAll, tenant: 'globex', eventTypes: ['*'], url: steady.url },
    ];
    await produceRegistryRecords(
      fx.kafka,
      subs.map(({ url, ...s }) => ({
        key: s.name,
        value: handMadeRecord(
          { ...s, url, start: 'earliest', allowPrivateNetwork: true, rate: { perSecond: 1000 } },
          { version: 4 },
        ),
      })),
    );
    fleet = await startRunningCatalogFleet({ topic, prefix, secretsKey }, subs.length);
  }, 150_000);

  afterAll(async () => {
    await fleet?.stop();
    await fx.close();
    await receivers.closeAll();
  });

  it("a subscriber of acme taking '*' receives subscriber.disabled about an acme subscriber, not about a globex one", async () => {
    await publish([
      { ...factory.event('shipment.updated'), tenant: 'acme' },
      { ...factory.event('shipment.updated'), tenant: 'globex' },
    ]);
    const notices = noticesTopicName(topic);
    const published = await readRecords(notices, 2);
    const tenantOfNotice = (subscriber: string) =>
      published.find((r) => r.key?.toString() === subscriber)?.headers[CE_HEADER.tenant];
    expect(tenantOfNotice(acmeGone)).toBe('acme');
    expect(tenantOfNotice(globexGone)).toBe('globex');

    // Its ledger on the notices topic past both: the globex one was read and passed over.
    await waitFor(
      'the acme ops subscriber to pass both notices',
      async () => {
        const [ledger] = await fx.admin.committedOffsets(subscriberGroupId(acmeOps), notices);
        return Number(ledger?.offset ?? -1) >= 2 ? true : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const disabled = steady.arrivals.filter(
      (a) => a.subscriptionId === acmeOps && a.body?.type === 'subscriber.disabled',
    );
    expect(disabled.map((a) => [a.status, a.body?.subscriber, a.body?.tenant])).toEqual([
      [204, acmeGone, 'acme'],
    ]);
    // The globex subscriber of '*' took the globex notice, and not the acme one.
    await waitFor('the globex notice at the globex subscriber', async () =>
      steady.arrivals.some((a) => a.subscriptionId === globexAll && a.body?.subscriber === globexGone)
        ? true
        : undefined,
    );
    expect(
      steady.arrivals.some((a) => a.subscriptionId === globexAll && a.body?.subscriber === acmeGone),
    ).toBe(false);
  }, 60_000);

  it("an acme event's dead letter, dlq list and ledger name acme; a globex subscriber past it shows it filtered, by tenant", async () => {
    const event = factory.event('key.revoked');
    await publish([{ ...event, tenant: 'acme' }]);
    // The DLQ topic is made with the first dead letter: dlq list says when it is there.
    const listed = await waitFor(
      'the dead letter',
      async () => {
        const out = await cliJson<{ deadLetters: { eventId: string; tenant: string | null }[] }>(
          'dlq',
          'list',
          '--subscriber',
          acmeBad,
        );
        return out.deadLetters.length > 0 ? out : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(listed.deadLetters.map((d) => [d.eventId, d.tenant])).toEqual([[event.id, 'acme']]);
    const [copy] = await readRecords(dlqTopicName(acmeBad), 1);
    expect(copy?.headers[CE_HEADER.id]).toBe(event.id);
    expect(copy?.headers[CE_HEADER.tenant]).toBe('acme');
    const table = await runCli(['dlq', 'list', '--subscriber', acmeBad], process.env);
    expect(table.stdout).toMatch(/event id\s+type\s+tenant\s+reason/);

    interface Ledger {
      tenant: string | null;
      subscribers: { subscriber: string; ledger: { state: string; tenant?: string | null } }[];
    }
    const ledger = await waitFor(
      'the globex subscriber past the acme event',
      async () => {
        const answer = await cliJson<Ledger>('ledger', event.id, '--topic', topic);
        const globex = answer.subscribers.find((s) => s.subscriber === globexAll);
        return globex?.ledger.state === 'filtered' ? answer : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(ledger.tenant).toBe('acme');
    const state = (name: string) => ledger.subscribers.find((s) => s.subscriber === name)?.ledger;
    expect(state(globexAll)).toMatchObject({ state: 'filtered', at: null, tenant: 'acme' });
    expect(state(acmeBad)).toMatchObject({ state: 'dead-lettered', reason: 'terminal' });
    const people = await runCli(['ledger', event.id, '--topic', topic], process.env);
    expect(people.stdout).toContain('tenant acme');
    expect(people.stdout).toMatch(/filtered\s+by tenant/);
  }, 90_000);
});
