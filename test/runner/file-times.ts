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
  /** The file's failed tests, or its own error when it failed before any test ran. */
  readonly failures: readonly TestFailure[];
}

/** One failed test, with the head of its first failure message (CI shows only the log's tail). */
export interface TestFailure {
  readonly test: string;
  readonly message: string;
}

/** Lines of a failure message kept for the summary: the assertion and where it failed. */
const FAILURE_LINES = 6;
/** Failed tests listed per file; the rest are counted. */
export const FAILURES_PER_FILE = 5;

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
    readonly message?: string;
    readonly assertionResults?: readonly {
      readonly fullName?: string;
      readonly status?: string;
      readonly failureMessages?: readonly string[];
    }[];
  }[];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes in vitest's messages
const ANSI = /\u001b\[[0-9;]*m/g;

/** Stack frames in vitest itself or Node say nothing about the failure. */
const NOISE = /node_modules|node:internal|\(<anonymous>\)/;

function headOf(message: string): string {
  return message
    .replace(ANSI, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !NOISE.test(line))
    .slice(0, FAILURE_LINES)
    .join('\n');
}

function failuresOf(result: NonNullable<JsonReport['testResults']>[number]): TestFailure[] {
  const failed = (result.assertionResults ?? [])
    .filter((a) => a.status === 'failed')
    .map((a) => ({ test: a.fullName ?? '(unnamed)', message: headOf(a.failureMessages?.[0] ?? '') }));
  if (failed.length === 0 && result.status === 'failed')
    return [{ test: '(the file itself)', message: headOf(result.message ?? '') }];
  return failed;
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
      failures: failuresOf(r),
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
