import { parseArgs } from 'node:util';
import { formatTable } from '@hookstream/terminal';
import { type ProfileShare, summarizeProfile } from '../profile-summary.ts';

export const BENCH_PROFILE_USAGE = `Usage: hookstream bench profile <file.cpuprofile> [--top <n>] [--from <s>] [--to <s>] [--json]

Sums a V8 CPU profile's samples by package (self time), by function (self time) and by function
(inclusive time), the --top largest of each (default 25), as shares of all samples; "(idle)" is
time the thread waited. --from/--to: only the samples that many seconds from the profile's start
(a fleet's idle window, say). Profiles come from HOOKSTREAM_BENCH_PROFILE_DIR=<dir> with bench push,
bench ingress or bench pull (docs/benchmarks.md), or node --cpu-prof.`;

/** `hookstream bench profile`: what a profile's time went to, as tables or JSON. */
export async function benchProfileCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '25' },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_PROFILE_USAGE}\n`);
    return 0;
  }
  const top = Number(values.top);
  const fromS = values.from === undefined ? 0 : Number(values.from);
  const toS = values.to === undefined ? Number.POSITIVE_INFINITY : Number(values.to);
  const [file] = positionals;
  if (
    file === undefined ||
    positionals.length > 1 ||
    !Number.isInteger(top) ||
    top < 1 ||
    top > 1000 ||
    !(fromS >= 0) ||
    !(toS > fromS)
  ) {
    process.stderr.write(`${BENCH_PROFILE_USAGE}\n`);
    return 2;
  }
  let summary: Awaited<ReturnType<typeof summarizeProfile>>;
  try {
    summary = await summarizeProfile(file, top, { fromS, toS });
  } catch (err) {
    process.stderr.write(`hookstream bench profile: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  }
  const table = (title: string, rows: readonly ProfileShare[]) =>
    `${title}\n${formatTable(
      ['share', 'name'],
      rows.map((r) => [`${(r.share * 100).toFixed(1)} %`, r.name]),
    )}\n`;
  process.stdout.write(
    `${summary.samples} samples of a ${summary.seconds} s profile, ${(summary.idle * 100).toFixed(1)} % idle\n\n` +
      `${table('self time by package', summary.packages)}\n` +
      `${table('self time by function', summary.self)}\n` +
      table('inclusive time by function', summary.inclusive),
  );
  return 0;
}
