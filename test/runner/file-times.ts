import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';

/** One test file's wall time in a phase, from vitest's JSON report. */
export interface FileTime {
  readonly phase: string;
  readonly file: string;
  readonly seconds: number;
  readonly status: string;
}

/**
 * How long one file may take, start to end, with the other shared files running beside it. The
 * whole run must stay within 20 minutes on two cores: a file that needs longer is split, or its
 * wall-clock floor configured shorter.
 */
export const FILE_BUDGET_SECONDS: Readonly<Record<string, number>> = { shared: 120, exclusive: 180 };

interface JsonReport {
  readonly testResults?: readonly {
    readonly name: string;
    readonly startTime?: number;
    readonly endTime?: number;
    readonly status?: string;
  }[];
}

export async function readFileTimes(phase: string, jsonPath: string, root: string): Promise<FileTime[]> {
  let report: JsonReport;
  try {
    report = JSON.parse(await readFile(jsonPath, 'utf8')) as JsonReport;
  } catch {
    return [];
  }
  return (report.testResults ?? []).map((r) => ({
    phase,
    file: relative(root, r.name),
    seconds: Math.max(0, ((r.endTime ?? 0) - (r.startTime ?? 0)) / 1000),
    status: r.status ?? 'unknown',
  }));
}

/** Files over their phase's budget. */
export function overBudget(times: readonly FileTime[]): FileTime[] {
  return times.filter((t) => t.seconds > (FILE_BUDGET_SECONDS[t.phase] ?? Number.POSITIVE_INFINITY));
}

export function slowest(times: readonly FileTime[], count: number): FileTime[] {
  return [...times].sort((a, b) => b.seconds - a.seconds).slice(0, count);
}
