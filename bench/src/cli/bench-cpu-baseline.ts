import { parseArgs } from 'node:util';
import {
  CPU_BASELINE_DEFAULTS,
  CPU_BASELINE_FILE,
  CPU_REGRESSION_MARGIN,
  cpuBaselineOf,
  cpuRegressionVerdict,
  measureCpuRatio,
  readCpuBaseline,
  writeCpuBaseline,
} from '../cpu-baseline.ts';
import { benchConnection } from './bench-connection.ts';

/** Measurements --write takes, the median one committed. */
const WRITE_MEASUREMENTS = 5;

export const BENCH_CPU_BASELINE_USAGE = `Usage: hookstream bench cpu-baseline [--write] [--json]

The CPU regression check's measurement (test/exclusive/push-cpu-regression.test.ts): the
in-process pusher drains ${CPU_BASELINE_DEFAULTS.events} events and the plain undici loop POSTs as many to the same
no-op endpoint, three uncounted runs of each, then ${CPU_BASELINE_DEFAULTS.rounds} of each interleaved; prints the pusher's
median CPU per delivery over the loop's median CPU per POST, and the committed baseline's
(bench/cpu-baseline.json) × ${CPU_REGRESSION_MARGIN}, the most the check allows.
--write measures ${WRITE_MEASUREMENTS} times and records the one of the median ratio as the new baseline (one
measurement can be an outlier, and the check's margin is taken from the baseline): run it on a
quiet machine after a deliberate change of the pusher's cost per delivery, and commit the file
with that change.
Needs the local stack (npx hookstream stack up).`;

/** \`hookstream bench cpu-baseline\`: measures the ratio; with --write, commits it as the baseline. */
export async function benchCpuBaselineCommand(args: readonly string[]): Promise<number> {
  let values: { write: boolean; json: boolean; help: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        write: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${BENCH_CPU_BASELINE_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${BENCH_CPU_BASELINE_USAGE}\n`);
    return 0;
  }
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  const measurements = [];
  for (let i = 0; i < (values.write ? WRITE_MEASUREMENTS : 1); i++)
    measurements.push(await measureCpuRatio({ connection: benchConnection() }, progress));
  measurements.sort((a, b) => a.ratio - b.ratio);
  const measured = measurements[Math.floor(measurements.length / 2)];
  if (measured === undefined) throw new Error('no measurement');
  const committed = await readCpuBaseline().catch(() => null);
  const verdict = committed === null ? null : cpuRegressionVerdict(measured, committed);
  if (values.write) await writeCpuBaseline(cpuBaselineOf(measured));
  if (values.json) process.stdout.write(`${JSON.stringify({ measured, committed, verdict })}\n`);
  else
    process.stdout.write(
      `pusher      ${measured.pusherCpuMicros} µs CPU per delivery (median of ${measured.rounds})\n` +
        `plain loop  ${measured.loopCpuMicros} µs CPU per POST\n` +
        `ratio       ${measured.ratio}${measurements.length > 1 ? ` (the median of ${measurements.map((m) => m.ratio).join(', ')})` : ''}\n` +
        `runs        ${measured.runs.map((r) => `${r.mode === 'pusher' ? 'pusher' : 'loop'} ${r.cpuMicrosPerDelivery}`).join(', ')}\n` +
        (committed === null || verdict === null
          ? 'baseline    none committed yet\n'
          : `baseline    ${committed.ratio} (${committed.measuredAt}); the check allows ${verdict.allowed}: ${verdict.within ? 'within' : 'OVER'}\n`) +
        (values.write ? `written     ${CPU_BASELINE_FILE}\n` : ''),
    );
  return 0;
}
