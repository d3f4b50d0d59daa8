import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { whichCommand } from '@hookstream/stack';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { freePort } from '../support/ports.ts';

// `stack up` in a bad environment must stop at once with a message naming the problem.
// Each case uses its own state and cache folders, so the shared stack is never touched.

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `hookstream-${prefix}-`));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function listenOnFreePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanups.push(() => new Promise((ok) => server.close(ok)));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('stack up in a bad environment', () => {
  it('refuses a port another process holds, naming the port', async () => {
    const kafkaPort = await listenOnFreePort();
    const registryPort = await listenOnFreePort();
    const state = await tempDir('state');
    const result = await runCli(['stack', 'up'], {
      ...process.env,
      HOOKSTREAM_STATE_DIR: state,
      KAFKA_PORT: String(kafkaPort),
      REGISTRY_PORT: String(registryPort),
      HOOKSTREAM_JAEGER: 'off',
      HOOKSTREAM_REDIS: 'off',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT_TAKEN');
    expect(result.stderr).toContain(`port ${kafkaPort} on 127.0.0.1 is already in use`);
    expect(result.stderr).toContain(`port ${registryPort} on 127.0.0.1 is already in use`);
  });

  it('says Maven is missing when it must resolve Kafka and mvn is not on PATH', async () => {
    // A PATH holding only what the command needs besides Maven.
    const bin = await tempDir('bin');
    for (const tool of ['java', 'tar']) {
      const found = await whichCommand(tool);
      if (found) await symlink(found, join(bin, tool));
    }
    const result = await runCli(['stack', 'up'], {
      ...process.env,
      PATH: bin,
      HOOKSTREAM_STATE_DIR: await tempDir('state'),
      // An empty cache forces the download path that needs Maven.
      HOOKSTREAM_CACHE_DIR: await tempDir('cache'),
      KAFKA_PORT: String(await freePort()),
      KAFKA_CONTROLLER_PORT: String(await freePort()),
      REGISTRY_PORT: String(await freePort()),
      HOOKSTREAM_JAEGER: 'off',
      HOOKSTREAM_REDIS: 'off',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('TOOL_MISSING');
    expect(result.stderr).toMatch(/needs `mvn`, which is not on PATH: install Apache Maven/);
  });

  it('rejects a malformed port setting, naming the variable', async () => {
    const result = await runCli(['stack', 'status'], { ...process.env, KAFKA_PORT: 'ninety' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('KAFKA_PORT');
  });
});
