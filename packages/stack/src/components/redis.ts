import { mkdir, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import type { Component, LaunchSpec } from '../component.ts';
import type { StackConfig } from '../config.ts';
import { StackError } from '../errors.ts';
import { runInstallStep } from '../install-step.ts';
import type { Reporter } from '../progress.ts';
import { whichCommand } from '../tools.ts';

/**
 * Redis from Debian's package, for the clustered limiters (a destination's rate holds
 * across several pusher instances). Started when asked: HOOKSTREAM_REDIS=on installs the
 * package if it is missing (as root, with apt-get); auto runs it only where it is installed.
 */
export class RedisComponent implements Component {
  readonly name = 'redis';
  readonly required: boolean;
  readonly background = false;
  /** Debian's package: whatever version the machine has. */
  readonly version = null;
  readonly ports: readonly number[];
  readonly endpoints: Readonly<Record<string, string>>;
  readonly logFile: string;
  readonly #config: StackConfig;
  readonly #dir: string;

  constructor(config: StackConfig) {
    this.#config = config;
    this.required = config.redis.mode === 'on';
    this.ports = [config.redis.port];
    this.endpoints = { url: `redis://${config.host}:${config.redis.port}` };
    this.#dir = join(config.stateDir, 'redis');
    this.logFile = join(config.stateDir, 'logs', 'redis.log');
  }

  async skipReason(): Promise<string | null> {
    if (this.#config.redis.mode === 'off') return 'disabled (HOOKSTREAM_REDIS=on starts it)';
    if (this.#config.redis.mode === 'auto' && !(await whichCommand('redis-server'))) {
      return 'redis-server is not installed; set HOOKSTREAM_REDIS=on to install and start it';
    }
    return null;
  }

  async install(report: Reporter): Promise<void> {
    if (await whichCommand('redis-server')) return;
    const aptGet = await whichCommand('apt-get');
    if (!aptGet || process.getuid?.() !== 0) {
      throw new StackError(
        'TOOL_MISSING',
        'Redis needs `redis-server`, which is not on PATH: install it (Debian: apt-get install redis-server)',
      );
    }
    const logDir = join(this.#config.cacheDir, 'redis');
    await runInstallStep(
      {
        component: this.name,
        label: 'updating Debian package lists',
        command: aptGet,
        args: ['update', '-q'],
        cwd: this.#config.cacheDir,
        logFile: join(logDir, 'apt-update.log'),
      },
      report,
    );
    await runInstallStep(
      {
        component: this.name,
        label: 'installing redis-server from Debian packages',
        command: aptGet,
        args: ['install', '-y', '-q', '--no-install-recommends', 'redis-server'],
        cwd: this.#config.cacheDir,
        logFile: join(logDir, 'apt-install.log'),
        env: { DEBIAN_FRONTEND: 'noninteractive' },
      },
      report,
    );
  }

  async prepare(): Promise<LaunchSpec> {
    const server = await whichCommand('redis-server');
    if (!server) throw new StackError('START_FAILED', 'redis: redis-server vanished after install');
    const conf = join(this.#dir, 'redis.conf');
    await mkdir(this.#dir, { recursive: true });
    await writeFile(
      conf,
      [
        '# Written by `hookstream stack up`.',
        `bind ${this.#config.host}`,
        `port ${this.#config.redis.port}`,
        `dir ${this.#dir}`,
        'protected-mode yes',
        'daemonize no',
        // Limiter state is rebuilt by the pushers; nothing here needs to survive a restart.
        'save ""',
        'appendonly no',
        '',
      ].join('\n'),
    );
    // Redis rewrites its process title, so its working directory is what marks it as ours.
    return { command: server, args: [conf], cwd: this.#dir, logFile: this.logFile, marker: this.#dir };
  }

  isReady(): Promise<boolean> {
    return redisPing(this.#config.host, this.#config.redis.port);
  }
}

/** Sends PING in the Redis protocol and waits for +PONG. */
function redisPing(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}
