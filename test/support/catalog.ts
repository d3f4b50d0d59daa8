import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_TOPIC, type LogFn, SubscriberDefinition } from '@hookstream/contracts';
import { type KafkaConnection, RecordSender } from '@hookstream/kafka';
import { FleetProcess } from '@hookstream/pusher';
import { parseSecretsKey } from '@hookstream/subscribers';
import type { Meter } from '@opentelemetry/api';
import { expect } from 'vitest';
import { runCli } from './cli.ts';
import { endpoints } from './stack.ts';
import { waitFor } from './wait.ts';

/** A secrets key and the environment that carries it, for the CLI and a fleet of one test file. */
export function catalogEnv(topic: string): { secretsKey: string; env: NodeJS.ProcessEnv } {
  const secretsKey = randomBytes(32).toString('base64');
  return {
    secretsKey,
    env: { ...process.env, HOOKSTREAM_SECRETS_KEY: secretsKey, HOOKSTREAM_EVENTS_TOPIC: topic },
  };
}

/** `hookstream subscribers <args>`, expecting success; returns its --json answer when asked for. */
export async function subscribersCli<T = unknown>(env: NodeJS.ProcessEnv, ...args: string[]): Promise<T> {
  const run = await runCli(['subscribers', ...args], env);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return (args.includes('--json') ? JSON.parse(run.stdout) : run.stdout) as T;
}

/** Writes the definitions as files of a fresh directory and applies them with the real CLI. */
export async function applyDefinitions(
  env: NodeJS.ProcessEnv,
  definitions: readonly object[],
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-fleet-'));
  await Promise.all(
    definitions.map((d, i) => writeFile(join(dir, `${String(i).padStart(3, '0')}.json`), JSON.stringify(d))),
  );
  await subscribersCli(env, 'apply', dir);
}

/** A quiet fleet running the catalog's subscribers named `<prefix>-*` on the events topic, started. */
export async function startCatalogFleet(options: {
  readonly topic: string;
  readonly prefix: string;
  readonly secretsKey: string;
  /** The name it reports under in hookstream.instances (default host:pid). */
  readonly instance?: string;
  /** How often it looks at the retention headroom (default: the fleet's, 60 s). */
  readonly retentionCheckMs?: number;
  /** Its instruments (default: none). */
  readonly meter?: Meter;
  /** The fleet's own log lines (default: dropped). */
  readonly log?: LogFn;
}): Promise<FleetProcess> {
  const fleet = new FleetProcess({
    instance: options.instance,
    kafka: endpoints.kafka,
    registry: endpoints.registrySettings,
    topic: options.topic,
    match: `${options.prefix}-*`,
    secretsKey: parseSecretsKey(options.secretsKey, 'the test key'),
    tierPartitions: 1,
    fetchWaitMs: 100,
    retentionCheckMs: options.retentionCheckMs,
    ...(options.meter === undefined ? {} : { meter: options.meter }),
    log: options.log ?? (() => undefined),
    logFor: () => () => undefined,
  });
  await fleet.start();
  return fleet;
}

/** startCatalogFleet, once `count` of its subscribers run (a fleet starts them in the background). */
export async function startRunningCatalogFleet(
  options: Parameters<typeof startCatalogFleet>[0],
  count: number,
): Promise<FleetProcess> {
  const fleet = await startCatalogFleet(options);
  await waitFor(
    `${count} subscribers running`,
    async () => (fleet.entries().filter((e) => e.state === 'running').length === count ? true : undefined),
    { timeoutMs: 90_000 },
  );
  return fleet;
}

/**
 * A catalog record as one written by hand (a plain produce, or an earlier version) would be: the
 * definition with defaults filled in and its headers as given, so a header today's rules refuse
 * still gets into the record.
 */
export function handMadeRecord(
  definition: Record<string, unknown>,
  extra: { readonly version?: number } & Record<string, unknown> = {},
) {
  const { headers, ...rest } = definition;
  return {
    version: 2,
    definition: { ...SubscriberDefinition.parse(rest), headers: headers ?? {} },
    state: { kind: 'active' },
    createdAt: '2026-05-01T00:00:00.000Z',
    updatedAt: '2026-05-01T00:00:00.000Z',
    ...extra,
  };
}

/** Produces records onto the catalog topic directly, as any principal with WRITE on it can. */
export async function produceRegistryRecords(
  kafka: KafkaConnection,
  records: readonly { readonly key: string; readonly value: unknown }[],
): Promise<void> {
  const sender = new RecordSender(kafka);
  await sender.connect();
  try {
    await sender.send(
      CATALOG_TOPIC,
      records.map((r) => ({ key: r.key, value: Buffer.from(JSON.stringify(r.value)), headers: {} })),
    );
  } finally {
    await sender.disconnect();
  }
}
