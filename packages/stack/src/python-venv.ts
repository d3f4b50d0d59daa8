import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StackError } from './errors.ts';
import { runInstallStep } from './install-step.ts';
import type { Reporter } from './progress.ts';
import { requireCommand } from './tools.ts';

const run = promisify(execFile);

/** The oldest Python whose wheels the pinned requirements have (rpds-py needs 3.11). */
const MIN_PYTHON: readonly [number, number] = [3, 11];

export interface PythonVenvSpec {
  /** Named in progress lines and errors. */
  readonly component: string;
  /** What the venv is for, as a sentence subject ("Validating Kubernetes manifests"). */
  readonly purpose: string;
  /** The folder that holds the venv, its logs and its marker; replaced when the pins change. */
  readonly dir: string;
  /** A pinned requirements file. */
  readonly requirements: string;
  /** What pip installs, for the progress line ("kubernetes-validate 1.37.0"). */
  readonly packages: string;
  /** More that the marker must match (other pinned inputs installed beside the venv). */
  readonly extra?: string;
}

/** A venv's interpreter, and whether this call (re)built its folder. */
export interface PythonVenv {
  readonly python: string;
  readonly bin: (tool: string) => string;
  readonly fresh: boolean;
}

/**
 * A venv with pinned packages from PyPI, in its own folder of the cache. The marker holds what
 * was installed: a changed pin rebuilds the folder instead of trusting old files. The first run
 * takes seconds; later runs only check the marker.
 */
export async function ensurePythonVenv(spec: PythonVenvSpec, report: Reporter): Promise<PythonVenv> {
  const venv = join(spec.dir, 'venv');
  const python = join(venv, 'bin', 'python');
  const marker = join(spec.dir, '.complete');
  const want = `${hash(await readFile(spec.requirements, 'utf8'))} ${spec.extra ?? ''}\n`;
  const have = existsSync(marker) ? await readFile(marker, 'utf8') : '';
  const fresh = have !== want || !existsSync(python);
  if (fresh) {
    await rm(spec.dir, { recursive: true, force: true });
    await mkdir(spec.dir, { recursive: true });
    await installVenv(spec, venv, report);
  }
  return {
    python,
    bin: (tool) => join(venv, 'bin', tool),
    fresh,
  };
}

/** Records that everything the venv's folder needs is in place (call after any extra step). */
export async function completePythonVenv(spec: PythonVenvSpec): Promise<void> {
  const want = `${hash(await readFile(spec.requirements, 'utf8'))} ${spec.extra ?? ''}\n`;
  await writeFile(join(spec.dir, '.complete'), want);
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

async function installVenv(spec: PythonVenvSpec, venv: string, report: Reporter): Promise<void> {
  const python3 = await requireCommand('python3', spec.purpose);
  const { stdout } = await run(python3, ['-c', 'import sys; print("%d %d" % sys.version_info[:2])']);
  const [major = 0, minor = 0] = stdout.trim().split(' ').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new StackError(
      'TOOL_TOO_OLD',
      `${spec.purpose} needs Python ${MIN_PYTHON.join('.')}+, but \`${python3}\` is ${major}.${minor}`,
    );
  }
  await runInstallStep(
    {
      component: spec.component,
      label: `creating a Python venv for ${spec.packages}`,
      command: python3,
      args: ['-m', 'venv', venv],
      cwd: spec.dir,
      logFile: join(spec.dir, 'venv.log'),
    },
    report,
  );
  await runInstallStep(
    {
      component: spec.component,
      label: `installing ${spec.packages} from PyPI (pinned, first run only)`,
      command: join(venv, 'bin', 'pip'),
      args: ['install', '--disable-pip-version-check', '--no-input', '-r', spec.requirements],
      cwd: spec.dir,
      logFile: join(spec.dir, 'pip.log'),
      progressLine: /^(Collecting|Downloading|Installing) /,
      progressNoun: 'packages fetched',
    },
    report,
  );
}
