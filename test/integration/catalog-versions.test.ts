import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INSTANCE_STATUS_TOPIC, type InstanceStatus } from '@hookstream/contracts';
import { RecordSender } from '@hookstream/kafka';
import { readInstanceStatuses, SubscriberCatalog } from '@hookstream/subscribers';
import { afterAll, describe, expect, it } from 'vitest';
import {
  catalogEnv,
  handMadeRecord,
  produceRegistryRecords,
  startCatalogFleet,
  subscribersCli,
} from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

// Record version 3 (required, requiredFrom, retentionWarningMs) beside a fleet of older code: an
// instance that does not say it reads version 3 makes `subscribers apply` refuse such a record,
// while records that need no new field still go through; a current fleet says what it reads.
// Record version 4 (tenant) likewise beside a version-3 instance; and a tenant never changes.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
let sender: RecordSender | undefined;
const oldInstance = uniqueName('old-fleet');
const v3Instance = uniqueName('v3-fleet');

/** The status record a fleet of the previous version writes: no recordVersions. */
function olderStatus(): InstanceStatus {
  const now = new Date().toISOString();
  return {
    version: 1,
    instance: oldInstance,
    host: 'older-host',
    pid: 1,
    startedAt: now,
    at: now,
    everyMs: 60_000,
    subscribers: [],
  };
}

async function writeDefinition(definition: object): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-versions-'));
  // The receivers are on loopback: a private address is refused when written without the flag.
  await writeFile(join(dir, 'def.json'), JSON.stringify({ allowPrivateNetwork: true, ...definition }));
  return dir;
}

async function applyFile(env: NodeJS.ProcessEnv, definition: object) {
  return runCli(['subscribers', 'apply', await writeDefinition(definition)], env);
}

describe('record versions 3 and 4 beside an older fleet', () => {
  openForSuite(fx, factory, receivers);
  afterAll(async () => {
    // The older instance leaves, whatever happened: other suites apply version-3 records too.
    await sender
      ?.send(INSTANCE_STATUS_TOPIC, [
        { key: oldInstance, value: null, headers: {} },
        { key: v3Instance, value: null, headers: {} },
      ])
      .catch(() => undefined);
    await sender?.disconnect();
  });

  it('apply refuses a required definition while an older instance runs, takes plain ones, and takes it once it is gone', async () => {
    const topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('versions');
    const url = (await receivers.start()).url;
    const catalog = new SubscriberCatalog(fx.kafka);

    sender = new RecordSender(fx.kafka);
    await sender.connect();
    await sender.send(INSTANCE_STATUS_TOPIC, [
      { key: oldInstance, value: Buffer.from(JSON.stringify(olderStatus())), headers: {} },
    ]);

    const required = { name: `${prefix}-audit`, url, required: true, retentionWarningMs: 3_600_000 };
    const refused = await applyFile(env, required);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FLEET_TOO_OLD');
    expect(refused.stderr).toContain(
      `${prefix}-audit uses required, retentionWarningMs, requiredFrom (record version 3), which ${oldInstance} cannot read`,
    );
    expect((await catalog.read()).subscribers.has(`${prefix}-audit`)).toBe(false);

    // A definition with no new field is written as version 2, which the older fleet reads.
    const plain = await applyFile(env, { name: `${prefix}-plain`, url });
    expect(plain.code, plain.stderr).toBe(0);
    expect((await catalog.read()).subscribers.get(`${prefix}-plain`)?.version).toBe(2);

    // A current fleet says which versions it reads, so it never blocks an apply.
    const current = uniqueName('current-fleet');
    const fleet = await startCatalogFleet({ topic, prefix, secretsKey, instance: current });
    try {
      const reported = await waitFor(
        'the current fleet in hookstream.instances',
        async () => (await readInstanceStatuses(fx.kafka)).find((s) => s.instance === current),
        { timeoutMs: 30_000 },
      );
      expect(reported.recordVersions).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await fleet.stop();
    }

    await sender.send(INSTANCE_STATUS_TOPIC, [{ key: oldInstance, value: null, headers: {} }]);
    await subscribersCli(env, 'apply', await writeDefinition(required));
    const written = (await catalog.read()).subscribers.get(`${prefix}-audit`);
    expect(written?.version).toBe(3);
    expect(Date.parse(written?.definition.requiredFrom ?? '')).toBeGreaterThan(Date.now() - 120_000);
  });

  it('apply refuses a tenant while a version-3 instance runs, and takes it once that instance is gone', async () => {
    const topic = await fx.topic(1);
    const { env } = catalogEnv(topic);
    const prefix = uniqueName('tenant-versions');
    const url = (await receivers.start()).url;
    const catalog = new SubscriberCatalog(fx.kafka);
    if (sender === undefined) {
      sender = new RecordSender(fx.kafka);
      await sender.connect();
    }
    // The fleet of the release before tenants: it reads records up to version 3.
    await sender.send(INSTANCE_STATUS_TOPIC, [
      {
        key: v3Instance,
        value: Buffer.from(
          JSON.stringify({ ...olderStatus(), instance: v3Instance, recordVersions: [1, 2, 3] }),
        ),
        headers: {},
      },
    ]);

    const acme = { name: `${prefix}-acme`, url, tenant: 'acme', required: true };
    const refused = await applyFile(env, acme);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FLEET_TOO_OLD');
    // Only the field version 3 lacks is named: the instance reads `required` already.
    expect(refused.stderr).toMatch(
      new RegExp(`${prefix}-acme uses tenant \\(record version 4\\), which [^;]*${v3Instance}`),
    );
    expect((await catalog.read()).subscribers.has(`${prefix}-acme`)).toBe(false);

    await sender.send(INSTANCE_STATUS_TOPIC, [{ key: v3Instance, value: null, headers: {} }]);
    // The stack is shared: another fleet of older code (a CI run of an older checkout) may be
    // running too. Then the refusal names it, and no longer ours.
    const others = (await readInstanceStatuses(fx.kafka))
      .filter((s) => !(s.recordVersions ?? []).includes(4))
      .map((s) => s.instance);
    const again = await applyFile(env, acme);
    if (others.length > 0) {
      expect(again.stderr).toContain('FLEET_TOO_OLD');
      expect(again.stderr).not.toContain(v3Instance);
    } else {
      expect(again.code, again.stderr).toBe(0);
      const written = (await catalog.read()).subscribers.get(`${prefix}-acme`);
      expect(written?.version).toBe(4);
      expect(written?.definition.tenant).toBe('acme');
    }
  });

  it("apply refuses a subscriber's tenant changing, gained or lost, naming the field, whatever the fleet", async () => {
    const topic = await fx.topic(1);
    const { env } = catalogEnv(topic);
    const prefix = uniqueName('tenant-change');
    const url = (await receivers.start()).url;
    const catalog = new SubscriberCatalog(fx.kafka);
    const acme = { name: `${prefix}-acme`, url, tenant: 'acme' };
    const plain = { name: `${prefix}-plain`, url };
    // Written directly: the change is refused before the fleet's versions are even asked about.
    await produceRegistryRecords(fx.kafka, [
      { key: acme.name, value: handMadeRecord(acme, { version: 4 }) },
      { key: plain.name, value: handMadeRecord(plain) },
    ]);
    const cases = [
      { changed: { ...acme, tenant: 'globex' }, from: '"acme"', to: '"globex"' },
      { changed: { name: acme.name, url }, from: '"acme"', to: 'null' },
      { changed: { ...plain, tenant: 'acme' }, from: 'null', to: '"acme"' },
    ];
    for (const { changed, from, to } of cases) {
      const refused = await applyFile(env, changed);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('TENANT_CHANGED');
      expect(refused.stderr).toContain(`${changed.name} (`);
      expect(refused.stderr).toContain(`"tenant" cannot change (${from} → ${to})`);
    }
    const { subscribers } = await catalog.read();
    expect(subscribers.get(acme.name)?.definition.tenant).toBe('acme');
    expect(subscribers.get(plain.name)?.definition.tenant).toBeUndefined();
  });
});
