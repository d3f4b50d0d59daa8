import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FleetProcess } from '@hookstream/pusher';
import { parseSecretsKey } from '@hookstream/subscribers';
import { expect } from 'vitest';
import { runCli } from './cli.ts';
import { endpoints } from './stack.ts';

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
}): Promise<FleetProcess> {
  const fleet = new FleetProcess({
    kafka: endpoints.kafka,
    registry: endpoints.registrySettings,
    topic: options.topic,
    match: `${options.prefix}-*`,
    secretsKey: parseSecretsKey(options.secretsKey, 'the test key'),
    tierPartitions: 1,
    fetchWaitMs: 100,
    log: () => undefined,
    logFor: () => () => undefined,
  });
  await fleet.start();
  return fleet;
}
