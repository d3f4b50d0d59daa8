import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

/** A process's resident memory from /proc/<pid>/status, MiB: now (VmRSS) and its peak (VmHWM). */
export interface ResidentMemory {
  readonly rssMiB: number;
  readonly peakMiB: number;
}

export async function residentMemory(pid: number): Promise<ResidentMemory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: mib(kib('VmRSS') * 1024), peakMiB: mib(kib('VmHWM') * 1024) };
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

let ticksPerSecond: Promise<number> | undefined;

/** USER_HZ, the unit of /proc/<pid>/stat's CPU times (100 on every common Linux). */
function clockTicks(): Promise<number> {
  ticksPerSecond ??= promisify(execFile)('getconf', ['CLK_TCK']).then(
    ({ stdout }) => Number(stdout.trim()) || 100,
    () => 100,
  );
  return ticksPerSecond;
}

/** CPU seconds the process used so far, user + system, all its threads. */
export async function cpuSeconds(pid: number): Promise<number> {
  const { user, system } = cpuTicks(await readFile(`/proc/${pid}/stat`, 'utf8'));
  return (user + system) / (await clockTicks());
}

/** User and system CPU, in clock ticks, of a /proc `stat` line (a process's or one thread's). */
function cpuTicks(stat: string): { user: number; system: number } {
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 (utime) and 15 (stime); fields[0] is field 3.
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

/** Reads a process's CPU time now; `percent()` is its share of one core since then. */
export class CpuMeter {
  readonly #pid: number;
  readonly #startCpu: number;
  readonly #startMs: number;

  private constructor(pid: number, startCpu: number) {
    this.#pid = pid;
    this.#startCpu = startCpu;
    this.#startMs = performance.now();
  }

  static async start(pid: number): Promise<CpuMeter> {
    return new CpuMeter(pid, await cpuSeconds(pid));
  }

  /** CPU time used since start over the wall time since start, in % of one core (one decimal). */
  async percent(): Promise<number> {
    const used = (await cpuSeconds(this.#pid)) - this.#startCpu;
    const seconds = (performance.now() - this.#startMs) / 1000;
    return seconds > 0 ? Math.round((used / seconds) * 1000) / 10 : 0;
  }
}

/** What a child process used over a window: CPU time, and its RSS's peak over its start. */
export interface ChildUsage {
  readonly cpuMicros: number;
  /** Peak VmRSS sampled during the window minus VmRSS at its start, bytes (0 when it never grew). */
  readonly rssGrowthBytes: number;
}

/** How often a child's RSS is sampled: reading /proc costs the benchmark's process, not the child. */
const RSS_SAMPLE_MS = 25;

/**
 * Starts measuring another process of ours from /proc: its CPU time (all threads) and the peak of
 * its resident memory, sampled every 25 ms. A child's V8 heap cannot be read from outside, so
 * its memory is RSS, which rarely shrinks: a later window of the same process sees growth only
 * beyond the earlier peak.
 */
export async function startChildUsage(pid: number): Promise<{ end(): Promise<ChildUsage> }> {
  const cpuAtStart = await cpuSeconds(pid);
  const rssKiB = async () => {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  };
  const rssAtStart = await rssKiB();
  let peak = rssAtStart;
  const sampler = setInterval(() => {
    void rssKiB().then((kib) => {
      peak = Math.max(peak, kib);
    });
  }, RSS_SAMPLE_MS);
  sampler.unref();
  return {
    async end() {
      clearInterval(sampler);
      const cpuMicros = Math.round(((await cpuSeconds(pid)) - cpuAtStart) * 1e6);
      peak = Math.max(peak, await rssKiB());
      return { cpuMicros, rssGrowthBytes: (peak - rssAtStart) * 1024 };
    },
  };
}

/**
 * This process's CPU so far by where it ran, µs: the main thread in user space and in the kernel
 * (its syscalls: socket reads and writes), and every other thread (V8's GC helpers and compiler,
 * libuv's pool). Read from /proc/self/task, in clock ticks (10 ms each): only for windows of
 * seconds. Null where /proc has no task list.
 */
export interface ThreadCpu {
  readonly mainUserMicros: number;
  readonly mainSystemMicros: number;
  readonly otherThreadsMicros: number;
}

/** A ThreadCpu whose every part is `part(name)`: a difference, a share, a median. */
export function threadCpuOf(part: (name: keyof ThreadCpu) => number): ThreadCpu {
  return {
    mainUserMicros: part('mainUserMicros'),
    mainSystemMicros: part('mainSystemMicros'),
    otherThreadsMicros: part('otherThreadsMicros'),
  };
}

export function threadCpu(ticksPerSecond = 100): ThreadCpu | null {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const micros = (ticks: number) => (ticks * 1_000_000) / ticksPerSecond;
  let main = { user: 0, system: 0 };
  let others = 0;
  for (const tid of tasks) {
    let ticks: { user: number; system: number };
    try {
      ticks = cpuTicks(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'));
    } catch {
      continue; // a thread that ended between the listing and the read
    }
    if (Number(tid) === process.pid) main = ticks;
    else others += ticks.user + ticks.system;
  }
  return {
    mainUserMicros: micros(main.user),
    mainSystemMicros: micros(main.system),
    otherThreadsMicros: micros(others),
  };
}
