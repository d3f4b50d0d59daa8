import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ComponentReport, loadStackConfig, type StackStatus, VERSIONS } from '@hookstream/stack';
import { findEventTraces } from '@hookstream/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited, spawnCli } from '../support/child.ts';
import { runCli } from '../support/cli.ts';
import { uniqueName } from '../support/names.ts';
import { freePortRange } from '../support/ports.ts';
import { TRACING_BACKEND_WAIT_MS, tracingBackend } from '../support/tracing-backend.ts';
import { waitFor } from '../support/wait.ts';

// `npm start` on a machine whose Jaeger is not built yet, in a private stack (its own state,
// ports and cache). The seam is the build step: a `go` first on PATH that waits for a gate file
// and then copies the shared stack's real Jaeger binary, so the test decides when the "build"
// ends. Kafka, the registry, Redis, the ingress, the pusher and Jaeger are all real.

// The shared Jaeger binary must exist (the copy the slow `go` hands over): wait for its build.
beforeAll(tracingBackend, TRACING_BACKEND_WAIT_MS);

const REPO = resolve(import.meta.dirname, '../..');
const shared = loadStackConfig();
let dir = '';
let env: NodeJS.ProcessEnv = {};
let gate = '';
let jaegerQuery = '';
let ingressPort = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookstream-shared-stack-'));
  const cache = join(dir, 'cache');
  const bin = join(dir, 'bin');
  await mkdir(cache, { recursive: true });
  await mkdir(bin, { recursive: true });
  // Kafka and the registry from the shared cache; no Jaeger binary, so the start "builds" it.
  for (const entry of [`kafka-${VERSIONS.kafka}`, `apicurio-registry-${VERSIONS.apicurio}`])
    await symlink(join(shared.cacheDir, entry), join(cache, entry));
  gate = join(dir, 'build-may-finish');
  // Called as: go build -v -o <partial> <package>.
  await writeFile(
    join(bin, 'go'),
    `#!/bin/sh\nwhile [ ! -e "${gate}" ]; do sleep 0.2; done\ncp "${join(shared.cacheDir, 'bin', `jaeger-${VERSIONS.jaeger}`)}" "$4"\n`,
  );
  await chmod(join(bin, 'go'), 0o755);
  const port = await freePortRange(10);
  env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOOKSTREAM_STATE_DIR: join(dir, 'state'),
    HOOKSTREAM_CACHE_DIR: cache,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(port + 1),
    REGISTRY_PORT: String(port + 2),
    JAEGER_OTLP_GRPC_PORT: String(port + 3),
    JAEGER_OTLP_HTTP_PORT: String(port + 4),
    JAEGER_QUERY_PORT: String(port + 5),
    JAEGER_QUERY_GRPC_PORT: String(port + 6),
    REDIS_PORT: String(port + 7),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port + 4}/v1/traces`,
    // A failed export gives up after 1 s: spans not held past that would be lost.
    OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    HOOKSTREAM_REDIS: 'on',
    HOOKSTREAM_KEEP_STACK: '',
    // The second checkout's run is a run of its own: its leftover check must not see this one's names.
    HOOKSTREAM_TEST_RUN: '',
    HOOKSTREAM_TEST_LOGS: '',
  };
  jaegerQuery = `http://127.0.0.1:${port + 5}`;
  ingressPort = port + 8;
}, 30_000);

afterAll(async () => {
  await runCli(['stack', 'down', '--force'], env, 120_000);
  await rm(dir, { recursive: true, force: true });
}, 150_000);

async function sizeOf(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}

/** What a log file (which `npm start` appends to) got since `offset`. */
async function readFrom(file: string, offset: number): Promise<string> {
  return (await readFile(file).catch(() => Buffer.alloc(0))).subarray(offset).toString('utf8');
}

async function status(): Promise<StackStatus> {
  const result = await runCli(['stack', 'status', '--json'], env);
  return JSON.parse(result.stdout) as StackStatus;
}

function component(s: StackStatus, name: string): ComponentReport | undefined {
  return s.components.find((c) => c.name === name);
}

describe('npm start while Jaeger builds, and a second checkout on the same stack', () => {
  let start: ReturnType<typeof spawnCli> | undefined;
  afterAll(async () => {
    if (start && start.exitCode === null) {
      start.kill('SIGINT');
      await exited(start);
    }
  });

  it('verifies the sample events before the Jaeger build ends, then their traces reach Jaeger', async () => {
    const logs = ['ingress', 'pusher'].map((name) => join(shared.workDir, 'logs', `${name}.log`));
    const logStarts = await Promise.all(logs.map(sizeOf));
    start = spawnCli(
      [
        'start',
        '--ingress-port',
        String(ingressPort),
        '--receiver-port',
        String(ingressPort + 1),
        '--topic',
        uniqueName('cold'),
      ],
      env,
    );
    const child = start;
    const accepted = await waitFor(
      'the sample events to be verified at the receiver',
      async () => {
        if (child.exitCode !== null) throw new Error(`hookstream start exited:\n${child.output()}`);
        const ids = [...child.output().matchAll(/^(demo-\S+)\s+\S+\s+accepted: signature verified/gm)].map(
          (m) => m[1] as string,
        );
        return ids.length === 3 ? ids : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    // The pipeline ran while the build was still held at the gate.
    expect(existsSync(gate)).toBe(false);
    const building = component(await status(), 'jaeger');
    expect(building?.state).toBe('starting');
    expect(building?.note).toMatch(/^building/);
    expect(child.output()).not.toContain('tracing joined');
    // The ingress's and the pusher's exports gave up on the missing collector, and held the spans.
    await waitFor(
      'the ingress and the pusher to hold their spans',
      async () => {
        const tails = await Promise.all(logs.map((log, i) => readFrom(log, logStarts[i] ?? 0)));
        return tails.every((t) => t.includes('does not answer; holding spans')) ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );

    await writeFile(gate, 'go on');
    await waitFor(
      'start to say tracing joined',
      async () => (/tracing joined/.test(child.output()) ? true : undefined),
      {
        timeoutMs: 60_000,
      },
    );
    // Spans the ingress and the pusher made before Jaeger was up were held, then sent.
    for (const id of accepted) {
      const services = await waitFor(
        `the ingress's and the pusher's spans of ${id} in Jaeger`,
        async () => {
          const traces = await findEventTraces(jaegerQuery, id);
          const names = new Set(traces.flatMap((t) => Object.values(t.processes).map((p) => p.serviceName)));
          return names.has('hookstream-ingress') && names.has('hookstream-pusher')
            ? [...names].sort()
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(services).toEqual(['hookstream-ingress', 'hookstream-pusher']);
    }
  }, 300_000);

  it("a second checkout's test setup uses the running stack, and leaving it stops nothing", async () => {
    const before = await status();
    expect(before.components.map((c) => [c.name, c.state])).toEqual([
      ['kafka', 'running'],
      ['registry', 'running'],
      ['jaeger', 'running'],
      ['redis', 'running'],
    ]);
    expect(before.holders.map((h) => h.command)).toEqual(['npm start']);
    // Another checkout: its own folder (a .git marks a checkout), the same stack settings.
    const second = join(dir, 'second-checkout');
    await mkdir(join(second, '.git'), { recursive: true });
    const module = (path: string) => JSON.stringify(pathToFileURL(join(REPO, path)).href);
    const setup = `
      const { default: setup } = await import(${module('test/global-setup.ts')});
      const { stackStatus } = await import(${module('packages/stack/src/index.ts')});
      // vitest's project, of which the setup only uses provide().
      const teardown = await setup({ provide() {} });
      const during = await stackStatus();
      await teardown();
      process.stdout.write(JSON.stringify(during));`;
    const ran = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', setup], {
        cwd: second,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      child.stderr?.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      child.once('exit', (code) => done({ code, stdout, stderr }));
    });
    expect(ran.stderr).not.toMatch(/Error/);
    expect(ran.code).toBe(0);
    const during = JSON.parse(ran.stdout) as StackStatus;
    expect(during.holders.map((h) => [h.command, h.checkout])).toEqual([
      ['npm start', REPO],
      ['npm test', second],
    ]);
    // Nothing was started for the second checkout: the same processes serve both.
    expect(during.components.map((c) => c.pid)).toEqual(before.components.map((c) => c.pid));

    const after = await status();
    expect(after.components.map((c) => [c.name, c.state, c.pid])).toEqual(
      before.components.map((c) => [c.name, 'running', c.pid]),
    );
    expect(after.holders.map((h) => h.command)).toEqual(['npm start']);

    // npm start leaves too: the stack it started stays up until `stack down`.
    start?.kill('SIGINT');
    expect((await exited(start as NonNullable<typeof start>)).code).toBe(0);
    const left = await status();
    expect(left.holders).toEqual([]);
    expect(component(left, 'kafka')?.state).toBe('running');
    const down = await runCli(['stack', 'down'], env, 120_000);
    expect(down.stdout).toContain('stopped: kafka, registry, jaeger, redis');
    expect((await status()).components.every((c) => c.state === 'stopped')).toBe(true);
  }, 240_000);
});
