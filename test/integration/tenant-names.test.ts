import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CATALOG_TOPIC,
  CE_HEADER,
  dlqTopicName,
  nameBindingKey,
  registrationKey,
  replayLogTopicName,
  retryTopicName,
  subscriberGroupId,
} from '@hookstream/contracts';
import { RecordSender, readTopic } from '@hookstream/kafka';
import type { FleetProcess } from '@hookstream/pusher';
import {
  CatalogError,
  deleteSubscriber,
  refuseUnavailableNames,
  SubscriberCatalog,
} from '@hookstream/subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEnv, handMadeRecord, produceRegistryRecords, startCatalogFleet } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { deadLetterTotal } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

// Issue 26 item 4 on the real stack: a name stays with its tenant while its group, tiers or DLQ
// exist. acme's subscriber is written onto the catalog directly (apply refuses a tenant while an
// older fleet runs on the shared stack: catalog-versions); its leftovers are made as a pusher
// would leave them: a ledger committed on the events topic, a tier, a DLQ holding a dead letter,
// a replay log and a registration.

const fx = new KafkaFixture();
const catalog = new SubscriberCatalog(fx.kafka);
const name = uniqueName('names');
const acme = { kind: 'tenant', tenant: 'acme' } as const;
const globex = { kind: 'tenant', tenant: 'globex' } as const;
const definition = (tenant?: string) => ({
  name,
  url: 'https://hooks.example.com/in',
  retry: { delaysMs: [1000], maxAttempts: 2, jitter: 0 },
  ...(tenant === undefined ? {} : { tenant }),
});
let topic = '';
let env: NodeJS.ProcessEnv = {};

async function applyCli(def: object) {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-names-'));
  await writeFile(join(dir, 'x.json'), JSON.stringify(def));
  return runCli(['subscribers', 'apply', dir], env);
}

/** Every record under the name's own key and its binding key, raw. */
async function catalogRecords() {
  const keys = [name, nameBindingKey(name)];
  return readTopic(fx.kafka, {
    topic: CATALOG_TOPIC,
    keep: (r) => r.key !== null && keys.includes(r.key),
    purpose: 'test-tenant-names',
  });
}

const leftovers = () => [retryTopicName(name, 1), dlqTopicName(name), replayLogTopicName(name)];

async function existing(): Promise<string[]> {
  const all = new Set(await fx.admin.listTopics());
  return leftovers().filter((t) => all.has(t));
}

beforeAll(async () => {
  await fx.connect();
  topic = await fx.topic(1);
  env = catalogEnv(topic).env;
  await produceRegistryRecords(fx.kafka, [
    { key: name, value: handMadeRecord(definition('acme'), { version: 4 }) },
    {
      key: registrationKey(name, topic),
      value: {
        name,
        eventsTopic: topic,
        registeredAt: new Date().toISOString(),
        lastStartedAt: new Date().toISOString(),
      },
    },
  ]);
  await fx.admin.ensureTopics(leftovers().map((t) => ({ topic: t, partitions: 1, replicationFactor: 1 })));
  // A sender of its own: the fixture's producer would go on refreshing the DLQ's metadata after the purge.
  const sender = new RecordSender(fx.kafka);
  await sender.connect();
  await sender.send(dlqTopicName(name), [{ key: 'k', value: Buffer.from('acme dead letter'), headers: {} }]);
  await sender.disconnect();
  await fx.producer.send({ topic, acks: -1, messages: [{ key: 'k', value: Buffer.from('e'), headers: {} }] });
  await fx.admin.commitOffsets(subscriberGroupId(name), topic, [{ partition: 0, offset: '1' }]);
});

afterAll(async () => {
  await fx.close();
});

describe('names stay with their tenant', () => {
  it('a name acme holds is refused to globex: unavailable, nothing written, nothing said of acme', async () => {
    const before = (await catalogRecords()).length;
    let refused: unknown;
    try {
      refuseUnavailableNames(await catalog.read(), [definition('globex')], globex);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(CatalogError);
    expect((refused as CatalogError).code).toBe('NAME_UNAVAILABLE');
    expect((refused as CatalogError).message).not.toContain('acme');
    // The operator sees tenants: a live record's tenant change is TENANT_CHANGED, as before.
    const operator = await applyCli(definition('globex'));
    expect(operator.code).toBe(1);
    expect(operator.stderr).toContain('TENANT_CHANGED');
    expect((await catalogRecords()).length).toBe(before);
  });

  it("an operator's delete without --purge keeps the name bound: globex and no tenant are refused", async () => {
    const deleted = await runCli(['subscribers', 'delete', name, '--json'], env);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ deleted: true, purged: null, bound: true });
    expect((await catalog.read()).bindings.get(name)?.tenant).toBe('acme');
    expect(await existing()).toEqual(leftovers());
    const before = (await catalogRecords()).length;
    for (const def of [definition('globex'), definition()]) {
      const refused = await applyCli(def);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('NAME_UNAVAILABLE');
      expect(refused.stderr).toContain('unavailable; nothing was written');
      expect(refused.stderr).not.toContain('acme');
    }
    expect((await catalogRecords()).length).toBe(before);
    // Another tenant cannot purge it either: to globex the name does not exist.
    await expect(deleteSubscriber(catalog, { name, actor: globex, purge: true })).rejects.toMatchObject({
      code: 'UNKNOWN_SUBSCRIBER',
    });
    expect(await existing()).toEqual(leftovers());
  });

  it("acme's delete purges group, tiers, DLQ, replay log and registration, and frees the name", async () => {
    const result = await deleteSubscriber(catalog, { name, actor: acme, purge: false });
    expect(result).toMatchObject({
      deleted: false,
      bound: false,
      purged: { group: subscriberGroupId(name) },
    });
    expect([...(result.purged?.topics ?? [])].sort()).toEqual([...leftovers()].sort());
    await waitFor('the topics to be gone', async () => ((await existing()).length === 0 ? true : undefined));
    expect(await fx.admin.listGroupIds(subscriberGroupId(name))).not.toContain(subscriberGroupId(name));
    const snapshot = await catalog.read();
    expect(snapshot.bindings.has(name)).toBe(false);
    expect(snapshot.registrations.has(name)).toBe(false);
  });

  it('globex re-creates the name and starts with an empty ledger and DLQ', async () => {
    // apply refuses a tenant while an older fleet (another test's) runs on the shared stack.
    await waitFor(
      'apply to take the name',
      async () => {
        // From the earliest event: a ledger at 0 is a new group's, not acme's left behind.
        const run = await applyCli({ ...definition('globex'), start: 'earliest' });
        if (run.code === 0) return true;
        expect(run.stderr).toContain('FLEET_TOO_OLD');
        return undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    expect((await catalog.read()).subscribers.get(name)?.definition.tenant).toBe('globex');
    expect(await fx.ledger(name, topic)).toBe(0);
    expect(await deadLetterTotal(dlqTopicName(name))).toBe(0);
  });
});

describe("a tenant's delete of a subscriber a fleet runs", () => {
  const factory = new EventFactory();
  const receivers = new ReceiverPool();
  const prefix = uniqueName('names-run');
  const running = `${prefix}-acme`;
  let fleet: FleetProcess | undefined;
  let runTopic = '';

  beforeAll(async () => {
    await factory.init();
    runTopic = await fx.topic(1);
    const { secretsKey } = catalogEnv(runTopic);
    const failing = await receivers.start({ behaviour: { failTimes: 1000, failStatus: 503 } });
    await produceRegistryRecords(fx.kafka, [
      {
        key: running,
        value: handMadeRecord(
          {
            name: running,
            url: failing.url,
            tenant: 'acme',
            start: 'earliest',
            allowPrivateNetwork: true,
            retry: { delaysMs: [200], maxAttempts: 2, jitter: 0 },
          },
          { version: 4 },
        ),
      },
    ]);
    const message = await factory.message(factory.event());
    message.headers[CE_HEADER.tenant] = 'acme';
    await fx.producer.send({ topic: runTopic, acks: -1, messages: [message] });
    fleet = await startCatalogFleet({ topic: runTopic, prefix, secretsKey });
    // A dead letter and a ledger past it: everything a purge must take.
    await waitFor(
      'the dead letter',
      async () => ((await deadLetterTotal(dlqTopicName(running))) > 0 ? true : undefined),
      {
        timeoutMs: 60_000,
      },
    );
    await fx.settledEverything(running, runTopic);
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
    await receivers.closeAll();
  });

  it('deletes the record, waits for the fleet to leave the group, purges and frees the name', async () => {
    const result = await deleteSubscriber(catalog, { name: running, actor: acme, purge: false });
    expect(result).toMatchObject({
      deleted: true,
      bound: false,
      purged: { group: subscriberGroupId(running) },
    });
    expect(result.purged?.topics).toContain(dlqTopicName(running));
    const snapshot = await catalog.read();
    expect(snapshot.subscribers.has(running)).toBe(false);
    expect(snapshot.bindings.has(running)).toBe(false);
    expect(await fx.ledger(running, runTopic)).toBe(0);
    await waitFor('the DLQ to be gone', async () =>
      (await fx.admin.topicExists(dlqTopicName(running))) ? undefined : true,
    );
  });
});
