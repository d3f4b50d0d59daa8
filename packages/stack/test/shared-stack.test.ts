import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Component, LaunchSpec, PrepareOptions } from '../src/component.ts';
import { loadStackConfig, type StackConfig } from '../src/config.ts';
import { StackError } from '../src/errors.ts';
import { processStartTime } from '../src/processes.ts';
import { silentReporter } from '../src/progress.ts';
import {
  joinStack,
  leaveStack,
  releaseAndStop,
  type StackOptions,
  stackStatus,
  waitForComponent,
} from '../src/stack.ts';
import { StackHolders } from '../src/stack-holders.ts';

/**
 * A real server process (Node's HTTP server on a loopback port), standing in for Kafka where
 * what is tested is the bookkeeping around processes: holders, versions, the lock, scratch data.
 */
class HttpServerComponent implements Component {
  readonly name = 'server';
  readonly required = true;
  readonly port: number;
  readonly version: string | null;
  readonly background: boolean;
  readonly ports: readonly number[];
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly #dir: string;
  readonly #listenAfterMs: number;

  constructor(options: {
    port: number;
    dir: string;
    version?: string | null;
    background?: boolean;
    listenAfterMs?: number;
  }) {
    this.port = options.port;
    this.version = options.version === undefined ? '1.0' : options.version;
    this.background = options.background ?? false;
    this.#listenAfterMs = options.listenAfterMs ?? 0;
    this.ports = [this.port];
    this.endpoints = { url: `http://127.0.0.1:${this.port}` };
    this.#dir = join(options.dir, this.name);
    this.logFile = join(options.dir, 'logs', `${this.name}.log`);
  }

  async skipReason(): Promise<string | null> {
    return null;
  }

  async install(): Promise<void> {}

  async prepare(_report: unknown, options: PrepareOptions): Promise<LaunchSpec> {
    const data = join(this.#dir, options.scratchData ? 'scratch-data' : 'data');
    await mkdir(data, { recursive: true });
    await writeFile(join(data, 'written'), 'x');
    const marker = join(this.#dir, 'marker');
    const script = `setTimeout(() => require('node:http').createServer((q, r) => r.end('ok')).listen(${this.port}, '127.0.0.1'), ${this.#listenAfterMs})`;
    return {
      command: process.execPath,
      args: ['-e', script, marker],
      cwd: tmpdir(),
      logFile: this.logFile,
      marker,
      ...(options.scratchData ? { scratchDirs: [data] } : {}),
    };
  }

  async isReady(): Promise<boolean> {
    try {
      return (await fetch(this.endpoints.url ?? '', { signal: AbortSignal.timeout(500) })).ok;
    } catch {
      return false;
    }
  }

  dataDir(scratch: boolean): string {
    return join(this.#dir, scratch ? 'scratch-data' : 'data');
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  await new Promise((ok) => server.close(ok));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture(options: { version?: string; background?: boolean; listenAfterMs?: number } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-shared-'));
  const config: StackConfig = loadStackConfig({ HOOKSTREAM_STATE_DIR: dir, HOME: dir });
  const server = new HttpServerComponent({ port: await freePort(), dir, ...options });
  const stack: StackOptions = { config, components: [server], report: silentReporter, graceMs: 2000 };
  cleanups.push(async () => {
    await releaseAndStop({ ...stack, force: true });
    await rm(dir, { recursive: true, force: true });
  });
  return { config, server, stack };
}

async function stateOf(stack: StackOptions): Promise<string | undefined> {
  return (await stackStatus(stack)).components[0]?.state;
}

// Real child processes: start-up takes seconds on a machine busy with other work, past vitest's
// default 5 s per test; the verdicts do not depend on how long it takes.
describe('one stack, several holders', { timeout: 60_000 }, () => {
  it('a second holder uses the running stack, and the stack stops only when the last holder leaves', async () => {
    const { server, stack } = await fixture();
    const first = await joinStack({ command: 'npm test', stopWhenIdle: true }, stack);
    expect(first.reports[0]).toMatchObject({ state: 'running', startedNow: true, version: '1.0' });
    const second = await joinStack({ command: 'npm test' }, stack);
    expect(second.reports[0]).toMatchObject({ state: 'running', startedNow: false });
    expect((await stackStatus(stack)).holders.map((h) => h.id).sort()).toEqual(
      [first.holder.id, second.holder.id].sort(),
    );

    // The run that started it leaves first: the other still uses it.
    const left = await leaveStack(first.holder.id, stack);
    expect(left.stopped).toEqual([]);
    expect(left.heldBy.map((h) => h.id)).toEqual([second.holder.id]);
    expect(await server.isReady()).toBe(true);

    // The last one out stops what the first run meant to stop.
    expect((await leaveStack(second.holder.id, stack)).stopped).toEqual(['server']);
    expect(await stateOf(stack)).toBe('stopped');
  });

  it('what `npm start` or `stack up` started stays up when its holder leaves', async () => {
    const { stack } = await fixture();
    const start = await joinStack({ command: 'npm start' }, stack);
    expect((await leaveStack(start.holder.id, stack)).stopped).toEqual([]);
    expect(await stateOf(stack)).toBe('running');

    const up = await joinStack({ command: 'stack up', untilDown: true }, stack);
    expect(up.holder.pid).toBeNull();
    const test = await joinStack({ command: 'npm test', stopWhenIdle: true }, stack);
    // `stack down` while a test run holds the stack keeps it, and says who holds it.
    const down = await releaseAndStop(stack);
    expect(down.stopped).toEqual([]);
    expect(down.heldBy.map((h) => h.command)).toEqual(['npm test']);
    await leaveStack(test.holder.id, stack);
    expect(await stateOf(stack)).toBe('running');
    expect((await releaseAndStop(stack)).stopped).toEqual(['server']);
  });

  it('forgets a holder whose process died', async () => {
    const { config } = await fixture();
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const holders = new StackHolders(config.stateDir);
    // A holder file as a crashed run leaves it: its pid, then the process is gone.
    await mkdir(join(config.stateDir, 'holders'), { recursive: true });
    const file = join(config.stateDir, 'holders', 'crashed.json');
    const holder = {
      id: 'crashed',
      command: 'npm test',
      checkout: '/elsewhere',
      pid: child.pid,
      pidStart: await processStartTime(child.pid ?? 0),
      since: new Date().toISOString(),
    };
    await writeFile(file, JSON.stringify(holder));
    expect((await holders.live()).map((h) => h.id)).toEqual(['crashed']);
    // The same pid with another start time is another process.
    await writeFile(file, JSON.stringify({ ...holder, pidStart: '1' }));
    expect(await holders.live()).toEqual([]);
    await writeFile(file, JSON.stringify(holder));
    const exited = new Promise((ok) => child.once('exit', ok));
    child.kill('SIGKILL');
    await exited;
    expect(await holders.live()).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a running component of another version, or uses it when told to', async () => {
    const { config, server, stack } = await fixture({ version: '1.0' });
    const started = await joinStack({ command: 'stack up', untilDown: true }, stack);
    const newer = new HttpServerComponent({ port: server.port, dir: config.stateDir, version: '2.0' });
    const joining = joinStack({ command: 'npm test' }, { ...stack, components: [newer] });
    await expect(joining).rejects.toMatchObject({ code: 'VERSION_MISMATCH' });
    await expect(joining).rejects.toThrow(/server 1\.0 is running .* but this checkout pins 2\.0/);
    // The refused join holds nothing.
    expect((await stackStatus(stack)).holders.map((h) => h.id)).toEqual([started.holder.id]);

    const used = await joinStack(
      { command: 'npm test' },
      { ...stack, components: [newer], config: { ...config, onVersionMismatch: 'use' } },
    );
    expect(used.reports[0]).toMatchObject({ state: 'running', version: '1.0', startedNow: false });
    expect(used.reports[0]?.note).toBe('version 1.0, this checkout pins 2.0');
  });

  it('starts a component once when two holders join at the same moment', async () => {
    const { stack } = await fixture({ listenAfterMs: 300 });
    const [a, b] = await Promise.all([
      joinStack({ command: 'npm test' }, stack),
      joinStack({ command: 'npm test' }, stack),
    ]);
    expect([a.reports[0]?.startedNow, b.reports[0]?.startedNow].sort()).toEqual([false, true]);
    expect(a.reports[0]?.pid).toBe(b.reports[0]?.pid);
  });

  it("removes a test run's scratch data when it stops, and keeps kept data", async () => {
    const { server, stack } = await fixture();
    const kept = await joinStack({ command: 'stack up', untilDown: true }, stack);
    await releaseAndStop(stack);
    expect(kept.reports[0]?.startedNow).toBe(true);
    expect(existsSync(server.dataDir(false))).toBe(true);

    const test = await joinStack({ command: 'npm test', stopWhenIdle: true, scratchData: true }, stack);
    expect(existsSync(server.dataDir(true))).toBe(true);
    await leaveStack(test.holder.id, stack);
    expect(existsSync(server.dataDir(true))).toBe(false);
    expect(existsSync(server.dataDir(false))).toBe(true);
  });

  it('does not wait for a background component; waitForComponent does', async () => {
    const { stack } = await fixture({ background: true, listenAfterMs: 1500 });
    const session = await joinStack({ command: 'npm start' }, stack);
    expect(session.reports[0]?.state).toBe('starting');
    expect(await waitForComponent('server', stack)).toMatchObject({ state: 'running' });
    expect(await stateOf(stack)).toBe('running');
  });

  it('says so at once when a background component exits instead of becoming ready', async () => {
    const { server, stack } = await fixture({ background: true, listenAfterMs: 60_000 });
    const session = await joinStack({ command: 'npm start' }, stack);
    process.kill(-(session.reports[0]?.pid ?? 0), 'SIGKILL');
    const waiting = waitForComponent(server.name, { ...stack, timeoutMs: 30_000 });
    await expect(waiting).rejects.toBeInstanceOf(StackError);
    await expect(waiting).rejects.toThrow(/server exited during start-up/);
  });
});
