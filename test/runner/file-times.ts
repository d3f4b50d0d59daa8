import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';

/** One test file's wall time in a phase, from vitest's JSON report. */
export interface FileTime {
  readonly phase: string;
  readonly file: string;
  readonly seconds: number;
  /**
   * What counts against the budget: the time after everything in the background was ready. On a
   * fresh machine the builds of helm and Jaeger hold both cores for minutes; a file that waits for
   * them, or runs beside them, is then measured against the builds, not its own cost.
   */
  readonly budgeted: number;
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

/** When the background builds (Jaeger, the toolchains) were all ready, in ms since the epoch. */
export type ReadyAt = () => number;

export async function readFileTimes(
  phase: string,
  jsonPath: string,
  root: string,
  backgroundReadyAt: ReadyAt,
): Promise<FileTime[]> {
  let report: JsonReport;
  try {
    report = JSON.parse(await readFile(jsonPath, 'utf8')) as JsonReport;
  } catch {
    return [];
  }
  return (report.testResults ?? []).map((r) => {
    const start = r.startTime ?? 0;
    const end = r.endTime ?? start;
    const from = Math.max(start, backgroundReadyAt());
    return {
      phase,
      file: relative(root, r.name),
      seconds: Math.max(0, (end - start) / 1000),
      budgeted: Math.max(0, (end - from) / 1000),
      status: r.status ?? 'unknown',
    };
  });
}

/** Files over their phase's budget. */
export function overBudget(times: readonly FileTime[]): FileTime[] {
  return times.filter((t) => t.budgeted > (FILE_BUDGET_SECONDS[t.phase] ?? Number.POSITIVE_INFINITY));
}

export function slowest(times: readonly FileTime[], count: number): FileTime[] {
  return [...times].sort((a, b) => b.seconds - a.seconds).slice(0, count);
}
