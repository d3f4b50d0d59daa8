import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../bin/hookstream.js');

/** A `hookstream <command>` child of `npm start`, its output appended to a log file. */
export class ServiceProcess {
  readonly name: string;
  readonly logFile: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;

  constructor(name: string, args: readonly string[], env: NodeJS.ProcessEnv, logFile: string) {
    this.name = name;
    this.logFile = logFile;
    mkdirSync(dirname(logFile), { recursive: true });
    const log = createWriteStream(logFile, { flags: 'a' });
    this.#child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child.stdout?.pipe(log);
    this.#child.stderr?.pipe(log);
    this.#exited = new Promise((done) => this.#child.once('exit', (code) => done(code)));
  }

  /** Resolves with the exit code if the process ends (a crash during start-up shows here). */
  get exited(): Promise<number | null> {
    return this.#exited;
  }

  /** SIGTERM, as an operator would: the service finishes in-flight work and exits. */
  async stop(): Promise<void> {
    if (this.#child.exitCode === null) this.#child.kill('SIGTERM');
    await this.#exited;
  }
}
