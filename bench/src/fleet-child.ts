import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { childProfileFlags } from './bench-profiling.ts';
import { inCgroup, type PodCgroup } from './pod-cgroup.ts';
import { mib } from './proc-usage.ts';

/** The V8 heap of the measured process, MiB. */
export interface HeapFigures {
  readonly usedMiB: number;
  readonly totalMiB: number;
  /** Memory of Buffers and other C++ objects tied to JS objects (outside the V8 heap). */
  readonly externalMiB: number;
  /** The event loop's delay since the previous ask (or the start), ms: its p99 and its most. */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

/** Output lines kept for an error message when the fleet fails. */
const TAIL_LINES = 30;

/**
 * `hookstream push --all …` as an operator runs it, in a process of its own whose pid the
 * benchmark reads /proc of. Its heap is read through heap-probe.ts, loaded with --import.
 */
export class FleetChild {
  readonly #child: ChildProcess;
  readonly #exited: Promise<unknown>;
  readonly #tail: string[] = [];
  readonly #heapLines: string[] = [];
  readonly pid: number;
  /** `joined group` lines it logged: each one a JoinGroup and SyncGroup at a coordinator. */
  joins = 0;

  readonly #logFile: WriteStream | null;

  private constructor(child: ChildProcess, pid: number, logFile: WriteStream | null) {
    this.#child = child;
    this.pid = pid;
    this.#logFile = logFile;
    this.#exited = once(child, 'exit');
    this.#exited.finally(() => logFile?.end()).catch(() => undefined);
    for (const stream of [child.stdout, child.stderr]) this.#lines(stream, (l) => this.#keep(l));
    this.#lines(child.stdio[3] as Readable | null, (l) => this.#heapLines.push(l));
  }

  /**
   * `bin` is the hookstream command's script; `args` its command line (push --all …); `cgroup`:
   * started inside it, as in a pod of its memory limit. `name` names its log file when
   * HOOKSTREAM_BENCH_LOG_DIR is set: every line it printed, for a timeline of its groups.
   */
  static spawn(
    bin: string,
    args: readonly string[],
    env: NodeJS.ProcessEnv,
    cgroup?: PodCgroup | null,
    name = 'fleet',
  ): FleetChild {
    const probe = new URL('./heap-probe.ts', import.meta.url).href;
    const nodeArgs = [...childProfileFlags(), '--import', probe, bin, ...args];
    const [command, commandArgs] = cgroup
      ? inCgroup(cgroup, process.execPath, nodeArgs)
      : [process.execPath, nodeArgs];
    const child = spawn(command, commandArgs, {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    if (child.pid === undefined) throw new Error(`could not start ${bin} ${args.join(' ')}`);
    const logDir = process.env.HOOKSTREAM_BENCH_LOG_DIR;
    const logFile = logDir ? createWriteStream(join(logDir, `${name}-${child.pid}.log`)) : null;
    return new FleetChild(child, child.pid, logFile);
  }

  /** Null while it runs; its exit code (or signal name) once it ended. */
  get ended(): string | null {
    const { exitCode, signalCode } = this.#child;
    return exitCode !== null ? `exit code ${exitCode}` : signalCode;
  }

  /** Its last lines of output (JSON logs, errors), newest last. */
  tail(): string {
    return this.#tail.join('\n');
  }

  /** Asks the probe for the heap figures; null when none came within `timeoutMs`. */
  async heap(timeoutMs = 5000): Promise<HeapFigures | null> {
    const before = this.#heapLines.length;
    if (this.ended !== null) return null;
    this.#child.kill('SIGUSR2');
    const deadline = performance.now() + timeoutMs;
    while (this.#heapLines.length === before && performance.now() < deadline) await sleep(20);
    const line = this.#heapLines[before];
    if (line === undefined) return null;
    const m = JSON.parse(line) as {
      heapUsed: number;
      heapTotal: number;
      external: number;
      loopP99Ns: number;
      loopMaxNs: number;
    };
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    return {
      usedMiB: mib(m.heapUsed),
      totalMiB: mib(m.heapTotal),
      externalMiB: mib(m.external),
      loopDelayP99Ms: ms(m.loopP99Ns),
      loopDelayMaxMs: ms(m.loopMaxNs),
    };
  }

  /** SIGTERM (a clean stop: every subscriber commits and leaves), SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<'stopped' | 'killed' | 'had ended'> {
    if (this.ended !== null) return 'had ended';
    this.#child.kill('SIGTERM');
    // An unref'd grace timer: a fleet that stopped at once must not hold this process for graceMs.
    const clean = await Promise.race([this.#exited.then(() => true), sleep(graceMs, false, { ref: false })]);
    if (clean) return 'stopped';
    this.#child.kill('SIGKILL');
    await this.#exited;
    return 'killed';
  }

  /** kill -9: no commit, no leave; its groups wait out the session timeout. */
  async crash(): Promise<void> {
    if (this.ended !== null) return;
    this.#child.kill('SIGKILL');
    await this.#exited;
  }

  #keep(line: string): void {
    this.#logFile?.write(`${line}\n`);
    if (line.includes('"msg":"joined group"')) this.joins++;
    this.#tail.push(line);
    if (this.#tail.length > TAIL_LINES) this.#tail.shift();
  }

  #lines(stream: Readable | null | undefined, onLine: (line: string) => void): void {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) if (line.length > 0) onLine(line);
    });
  }
}
