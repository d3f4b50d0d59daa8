import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  consoleReporter,
  joinStack,
  leaveStack,
  loadStackConfig,
  type StackSession,
} from '@hookstream/stack';
import { formatTable } from '@hookstream/terminal';
import { newRunTag } from '../support/run-tag.ts';
import { prepareToolsInBackground, type ToolOutcome } from './background-tools.ts';
import {
  FAILURES_PER_FILE,
  FILE_BUDGET_SECONDS,
  type FileTime,
  overBudget,
  readFileTimes,
  slowest,
} from './file-times.ts';

/**
 * `npm test`: lint and typecheck, the packages' unit tests, then the root integration files in two
 * phases (vitest.config.ts): the shared ones side by side, the exclusive ones one at a time. The
 * stack is joined once for both phases (starting while lint runs), and the toolchains some files
 * need are prepared in the background. It ends with each phase's time, the ten slowest files and
 * the failed tests with the head of their messages (CI keeps only the tail of the log), and fails
 * if a file went over its budget (file-times.ts).
 */
const PHASES = ['lint', 'unit', 'shared', 'exclusive'] as const;
type Phase = (typeof PHASES)[number];

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'node_modules/.bin');
/** Measured on two cores (CONTRIBUTING.md): more workers only wait longer on the CPU. */
const DEFAULT_SHARED_WORKERS = 3;
/** A toolchain that is built already is ready within this (a cache check). */
const READY_AT_ONCE_MS = 5000;

const { values } = parseArgs({
  options: {
    phases: { type: 'string', default: PHASES.join(',') },
    workers: {
      type: 'string',
      default: process.env.HOOKSTREAM_TEST_WORKERS ?? String(DEFAULT_SHARED_WORKERS),
    },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(
    `Usage: npm test [-- --phases lint,unit,shared,exclusive] [--workers <1-8>]\n` +
      `Runs the phases given (all by default) and reports their times; see CONTRIBUTING.md.\n`,
  );
  process.exit(0);
}
const phases = values.phases.split(',').map((p) => p.trim());
const unknown = phases.filter((p) => !(PHASES as readonly string[]).includes(p));
if (unknown.length > 0) fail(`--phases: unknown phase ${unknown.join(', ')} (known: ${PHASES.join(', ')})`);
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1 || workers > 8)
  fail(`--workers: expected 1 to 8, got ${values.workers}`);
const wants = (p: Phase) => phases.includes(p);

function fail(message: string): never {
  process.stderr.write(`npm test: ${message}\n`);
  process.exit(2);
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, PATH: `${BIN}:${process.env.PATH ?? ''}`, ...env },
    });
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const config = loadStackConfig({ HOOKSTREAM_REDIS: 'on', ...process.env });
const keep = process.env.HOOKSTREAM_KEEP_STACK === '1';
const runTag = newRunTag();
const outDir = join(config.workDir, 'test-runs', runTag);
const logsDir = join(outDir, 'child-logs');
await mkdir(outDir, { recursive: true });

const timings: { phase: string; seconds: number; result: string }[] = [];
async function timed(phase: string, work: () => Promise<boolean>): Promise<boolean> {
  const started = performance.now();
  process.stdout.write(`\n== ${phase} ==\n`);
  const ok = await work();
  timings.push({ phase, seconds: (performance.now() - started) / 1000, result: ok ? 'passed' : 'FAILED' });
  return ok;
}

const integration = wants('shared') || wants('exclusive');
// The stack starts while lint, typecheck and unit tests run; a failure shows when it is needed.
const joining: Promise<StackSession> | undefined = integration
  ? joinStack({ command: 'npm test', stopWhenIdle: !keep, scratchData: !keep }, { config })
  : undefined;
joining?.catch(() => undefined);

let ok = true;
if (wants('lint'))
  ok = await timed(
    'lint and typecheck',
    async () => (await run('turbo', ['run', 'lint', 'typecheck'])) === 0,
  );
if (ok && wants('unit')) ok = await timed('unit', async () => (await run('turbo', ['run', 'test'])) === 0);

const fileTimes: FileTime[] = [];
let tools: ToolOutcome[] = [];
if (ok && joining) {
  const session = await joining;
  const toolsReady = prepareToolsInBackground(config, consoleReporter);
  // Until they are ready, no file's time counts against its budget (file-times.ts).
  let backgroundReadyAt = Number.POSITIVE_INFINITY;
  void toolsReady.then((outcomes) => {
    backgroundReadyAt = Math.max(...outcomes.map((t) => t.endedAt));
  });
  // On a warm machine nothing is built: the waiting files then take their place by size, so a
  // long one (the OpenAPI fuzz run) does not start last and run alone at the end of the phase.
  // The background list waits for Jaeger too, so "all ready at once" covers it.
  const toolsUp = await Promise.race([
    toolsReady.then((outcomes) => outcomes.every((t) => t.error === undefined)),
    sleep(READY_AT_ONCE_MS).then(() => false),
  ]);
  const waitersLast = toolsUp ? '0' : '1';
  try {
    const vitest = async (project: 'shared' | 'exclusive', parallel: string[]) => {
      const json = join(outDir, `${project}.json`);
      const code = await run(
        process.execPath,
        [
          join(ROOT, 'node_modules/vitest/vitest.mjs'),
          'run',
          '--project',
          project,
          ...parallel,
          '--reporter=default',
          '--reporter=json',
          `--outputFile.json=${json}`,
        ],
        {
          HOOKSTREAM_TEST_RUN: runTag,
          HOOKSTREAM_TEST_LOGS: logsDir,
          HOOKSTREAM_TEST_WAITERS_LAST: waitersLast,
        },
      );
      fileTimes.push(...(await readFileTimes(project, json, ROOT, () => backgroundReadyAt)));
      return code === 0;
    };
    if (wants('shared'))
      ok =
        (await timed(`shared integration (${workers} at a time)`, () =>
          vitest('shared', ['--fileParallelism', `--maxWorkers=${workers}`]),
        )) && ok;
    if (wants('exclusive'))
      ok = (await timed('exclusive integration (one at a time)', () => vitest('exclusive', []))) && ok;
  } finally {
    tools = await toolsReady;
    await leaveStack(session.holder.id, { config });
  }
} else if (joining) {
  await joining.then((s) => leaveStack(s.holder.id, { config })).catch(() => undefined);
}

const total = timings.reduce((sum, t) => sum + t.seconds, 0);
const rows = timings.map((t) => [t.phase, t.seconds.toFixed(0), t.result]);
process.stdout.write(
  `\n== npm test: phases ==\n${formatTable(['phase', 'seconds', 'result'], [...rows, ['total', total.toFixed(0), ok ? 'passed' : 'FAILED']])}\n`,
);
if (tools.length > 0) {
  const toolRows = tools.map((t) => [t.tool, t.seconds.toFixed(0), t.error ?? 'ready']);
  process.stdout.write(
    `\n== toolchains prepared in the background ==\n${formatTable(['tool', 'seconds', 'result'], toolRows)}\n`,
  );
}
if (fileTimes.length > 0) {
  const slow = slowest(fileTimes, 10).map((t) => [t.file, t.phase, t.seconds.toFixed(1), t.status]);
  process.stdout.write(
    `\n== the ten slowest files ==\n${formatTable(['file', 'phase', 'seconds', 'result'], slow)}\n`,
  );
}
const failedFiles = fileTimes.filter((t) => t.failures.length > 0);
if (failedFiles.length > 0) {
  process.stdout.write('\n== failed tests ==\n');
  for (const t of failedFiles) {
    process.stdout.write(`${t.file} (${t.phase}, ${t.seconds.toFixed(1)} s)\n`);
    for (const f of t.failures.slice(0, FAILURES_PER_FILE))
      process.stdout.write(`  × ${f.test}\n${f.message.replace(/^/gm, '      ')}\n`);
    const more = t.failures.length - FAILURES_PER_FILE;
    if (more > 0) process.stdout.write(`  and ${more} more\n`);
  }
}
const over = overBudget(fileTimes);
if (over.length > 0) {
  ok = false;
  const budgets = Object.entries(FILE_BUDGET_SECONDS)
    .map(([p, s]) => `${p} ${s} s`)
    .join(', ');
  process.stdout.write(`\nnpm test: over the per-file budget (${budgets}):\n`);
  for (const t of over) process.stdout.write(`  ${t.file}: ${t.seconds.toFixed(1)} s\n`);
}
if (existsSync(logsDir) && readdirSync(logsDir).length > 0)
  process.stdout.write(`\nnpm test: logs of the child processes of failed tests: ${logsDir}\n`);
process.exit(ok ? 0 : 1);
