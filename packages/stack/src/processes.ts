import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface PidRecord {
  readonly pid: number;
  readonly startedAt: string;
  /** A string that must appear in the process's command line for it to count as ours. */
  readonly marker: string;
  /** The version the starting checkout pinned (absent: unpinned, or written before versions were kept). */
  readonly version?: string;
  /** Who started it: a holder's command and checkout, for `stack status`. */
  readonly startedBy?: string;
  /** Stop it when the last holder leaves (it was started by a run that stops what it starts). */
  readonly stopWhenIdle?: boolean;
  /** Folders of this start only (a test run's Kafka data), removed when it is stopped. */
  readonly scratchDirs?: readonly string[];
}

export interface SpawnSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly logFile: string;
  readonly env?: Record<string, string>;
}

/** Starts a long-lived server detached from this process, its output appended to a log file. */
export function spawnDetached(spec: SpawnSpec): number {
  mkdirSync(dirname(spec.logFile), { recursive: true });
  const out = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      detached: true,
      stdio: ['ignore', out, out],
      env: { ...process.env, ...spec.env },
    });
    if (child.pid === undefined) throw new Error(`could not spawn ${spec.command}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(out);
  }
}

export async function readPidFile(file: string): Promise<PidRecord | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as PidRecord;
  } catch {
    return null;
  }
}

export async function writePidFile(file: string, record: PidRecord): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(record)}\n`);
}

export async function removePidFile(file: string): Promise<void> {
  await rm(file, { force: true });
}

/**
 * True when the pid is alive and carries our marker, so a recycled pid belonging to some other
 * program is never mistaken for (or killed as) ours. The marker is a path in the command line,
 * or the working directory for servers such as Redis that rewrite their process title (and with
 * it the memory /proc shows as their command line and environment).
 */
export async function isOurProcess(record: PidRecord): Promise<boolean> {
  try {
    const cmdline = await readFile(`/proc/${record.pid}/cmdline`, 'utf8');
    if (cmdline.includes(record.marker)) return true;
    return (await readlink(`/proc/${record.pid}/cwd`)) === record.marker;
  } catch {
    return false;
  }
}

/**
 * The process's start time in clock ticks since boot (/proc/<pid>/stat, field 22), or null when
 * it is not running (or a zombie): with the pid, it names one process, never a later one given
 * the same pid.
 */
export async function processStartTime(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces; fields follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie has exited; only its exit status is left to collect.
    if (fields[0] === 'Z') return null;
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * SIGTERM, then SIGKILL if the process has not gone after graceMs. Signals go to the process
 * group the detached start made, so a build's children (a background `go build`) stop with it.
 */
export async function stopProcess(
  record: PidRecord,
  graceMs: number,
): Promise<'stopped' | 'killed' | 'gone'> {
  if (!(await isOurProcess(record))) return 'gone';
  signal(record.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!(await isOurProcess(record))) {
      await untilExited(record.pid);
      return 'stopped';
    }
    await sleep(200);
  }
  signal(record.pid, 'SIGKILL');
  while (await isOurProcess(record)) await sleep(100);
  await untilExited(record.pid);
  return 'killed';
}

/**
 * An exiting process loses its command line (its memory is released) before the kernel closes
 * its files, and its leader shows as a zombie while its other threads are still exiting and
 * still hold those files, its listening ports among them: a start right after a stop found the
 * port taken. Wait (bounded) until no thread of it runs; a pid whose leader shows a command line
 * again belongs to another process.
 */
async function untilExited(pid: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && (await isExiting(pid))) await sleep(20);
}

async function isExiting(pid: number): Promise<boolean> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  let running = false;
  for (const tid of tasks) if (await isRunningTask(pid, tid)) running = true;
  if (!running) return false;
  if (!(await isRunningTask(pid, String(pid)))) return true;
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')) === '';
  } catch {
    return false;
  }
}

/** A thread that has not exited: neither a zombie nor dead (nor gone from /proc). */
async function isRunningTask(pid: number, tid: string): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const state = stat[stat.lastIndexOf(')') + 2];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      // Not a group leader (started by something other than spawnDetached).
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

/** True when something accepts TCP connections on host:port. */
export function isPortOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
