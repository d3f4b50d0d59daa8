import { createCipheriv, randomBytes } from 'node:crypto';
import { SUBSCRIBER_REGISTRY_TOPIC } from '@hookstream/contracts';
import { readTopic } from '@hookstream/kafka';
import { FleetProcess } from '@hookstream/pusher';
import { parseSecretsKey } from '@hookstream/subscribers';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogEnv, handMadeRecord, produceRegistryRecords } from '../support/catalog.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture, type LogLine } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endpoints } from '../support/stack.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

// Records written by the previous version (record version 1, seals bound to the name only): what
// `subscribers check` says of them, what `reseal` makes of them, and what a fleet does after.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let fleet: FleetProcess | undefined;

/** A managed secret sealed as version 1 sealed it: AES-256-GCM, the name alone as associated data. */
function v1Seal(key: Buffer, keyId: string, name: string, plaintext: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`hookstream.subscriber-secret.v1:${name}`, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    alg: 'A256GCM',
    keyId,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    createdAt: '2026-05-01T00:00:00.000Z',
  };
}

describe('subscribers check and reseal on records the previous version wrote', () => {
  openForSuite(fx, factory, receivers);
  afterAll(async () => {
    await fleet?.stop();
  });

  it('check lists them and why; reseal moves the seals; a fleet then signs with the same secret and refuses the old seal', async () => {
    const topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    const key = parseSecretsKey(secretsKey, 'the test key');
    const prefix = uniqueName('upgrade');
    const [managed, plain, leaky] = ['managed', 'plain', 'leaky'].map((n) => `${prefix}-${n}`) as [
      string,
      string,
      string,
    ];
    const endpoint = await receivers.start();
    const attacker = await receivers.start();
    const common = { url: endpoint.url, start: 'earliest', allowPrivateNetwork: true };
    const oldManaged = handMadeRecord(
      { ...common, name: managed },
      {
        version: 1,
        secret: { managed: true, current: v1Seal(key.key, key.id, managed, SECRET), previous: [] },
      },
    );
    await produceRegistryRecords(fx.kafka, [
      { key: managed, value: oldManaged },
      { key: plain, value: handMadeRecord({ ...common, name: plain }, { version: 1 }) },
      {
        key: leaky,
        value: handMadeRecord({
          ...common,
          name: leaky,
          headers: { Authorization: { env: 'BILLING_TOKEN' } },
        }),
      },
    ]);
    const cli = (...args: string[]) =>
      runCli(['subscribers', ...args, '--match', `${prefix}-*`, '--json'], env);

    const before = await cli('check');
    expect(before.code, before.stderr).toBe(1);
    const found = JSON.parse(before.stdout) as {
      checked: number;
      versions: Record<string, number>;
      findings: { name: string; verdict: string; why: string; fix: string }[];
    };
    expect(found.checked).toBe(3);
    expect(found.versions).toEqual({ 1: 2 });
    expect(found.findings.map((f) => [f.name, f.verdict]).sort()).toEqual(
      [
        [leaky, 'refused'],
        [managed, 'skipped'],
      ].sort(),
    );
    expect(found.findings.find((f) => f.name === leaky)?.why).toContain(
      'definition.headers.Authorization.env: may name only a variable starting with HOOKSTREAM_HEADER_',
    );
    expect(found.findings.find((f) => f.name === managed)?.fix).toBe('hookstream subscribers reseal --all');

    const resealed = await runCli(
      ['subscribers', 'reseal', '--all', '--match', `${prefix}-*`, '--json'],
      env,
    );
    expect(resealed.code, resealed.stderr).toBe(0);
    expect(
      (JSON.parse(resealed.stdout) as { subscribers: { name: string; action: string }[] }).subscribers
        .map((s) => [s.name, s.action])
        .sort(),
    ).toEqual(
      [
        [managed, 'resealed'],
        [plain, 'rewritten'],
      ].sort(),
    );
    const after = JSON.parse((await cli('check')).stdout) as {
      versions: object;
      findings: { name: string }[];
    };
    expect(after.versions).toEqual({ 2: 2 });
    expect(after.findings.map((f) => f.name)).toEqual([leaky]);
    const shown = await runCli(['subscribers', 'secret', 'show', managed, '--json'], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({ managed: true, current: SECRET });

    const logs: LogLine[] = [];
    fleet = new FleetProcess({
      kafka: endpoints.kafka,
      registry: endpoints.registrySettings,
      topic,
      match: `${prefix}-*`,
      secretsKey: key,
      tierPartitions: 1,
      fetchWaitMs: 100,
      log: (level, message, fields = {}) => logs.push({ level, message, fields }),
      logFor: () => () => undefined,
    });
    await fleet.start();
    const delivered = async (id: string) => {
      await waitFor(`${id} to reach ${managed}`, async () =>
        endpoint.arrivals.find((a) => a.subscriptionId === managed && a.eventId === id && a.status === 204),
      );
      const arrival = endpoint.arrivals.find((a) => a.subscriptionId === managed && a.eventId === id);
      // The secret the previous version generated still signs: the endpoint changes nothing.
      const body = JSON.stringify(arrival?.body);
      expect(() => new Webhook(SECRET).verify(body, arrival?.headers ?? {})).not.toThrow();
    };
    const first = factory.event('shipment.updated');
    await fx.produce(topic, factory, [first]);
    await delivered(first.id);

    // A catalog writer replays the old record, or keeps today's seal and points the URL elsewhere:
    // neither opens any more. The fleet reports it and keeps running what it had.
    const [current] = (
      await readTopic(fx.kafka, {
        topic: SUBSCRIBER_REGISTRY_TOPIC,
        keep: (r) => r.key === managed,
        purpose: 'test-upgrade',
      })
    ).slice(-1);
    const redirected = { ...JSON.parse(current?.value?.toString() ?? '{}') };
    redirected.definition = { ...redirected.definition, url: attacker.url };
    for (const [record, code] of [
      [oldManaged, 'OLD_SEAL'],
      [redirected, 'SECRET_UNREADABLE'],
    ] as const) {
      await produceRegistryRecords(fx.kafka, [{ key: managed, value: record }]);
      await waitFor(`the fleet to report ${code}`, async () =>
        logs.some(
          (l) =>
            l.message.startsWith('subscriber record unusable') &&
            l.fields.subscriber === managed &&
            String(l.fields.error).startsWith(code),
        )
          ? true
          : undefined,
      );
      const next = factory.event('shipment.updated');
      await fx.produce(topic, factory, [next]);
      await delivered(next.id);
    }
    expect(attacker.arrivals).toEqual([]);
    const refused = await runCli(['subscribers', 'secret', 'show', managed], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/SECRET_UNREADABLE/);
  }, 120_000);
});
