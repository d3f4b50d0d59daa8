import { execFile } from 'node:child_process';
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
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 (utime) and 15 (stime); fields[0] is field 3.
  return (Number(fields[11]) + Number(fields[12])) / (await clockTicks());
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
