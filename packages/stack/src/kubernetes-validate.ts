import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type StackConfig, VERSIONS } from './config.ts';
import { StackError } from './errors.ts';
import { runInstallStep } from './install-step.ts';
import type { Reporter } from './progress.ts';
import { requireCommand } from './tools.ts';

const run = promisify(execFile);
const RESOURCES = join(import.meta.dirname, '../resources/k8s-validate');

/**
 * The KEDA module's zip as the Go checksum database knows it (`go mod download -json` prints
 * the same "Sum"). Checked after download, so the CRD schemas are pinned like a go.sum line.
 */
const KEDA_MODULE = 'github.com/kedacore/keda/v2';
const KEDA_MODULE_SUM = 'h1:R6z2HZvstK4RLUMxroNACzBj74xGxt3kG59b5Xc+Xps=';
/** The KEDA kinds the chart renders; their CRDs are copied out of the module. */
const KEDA_CRDS = ['keda.sh_scaledobjects.yaml', 'keda.sh_triggerauthentications.yaml'] as const;

/** The oldest Python whose wheels the pinned requirements have (rpds-py needs 3.11). */
const MIN_PYTHON: readonly [number, number] = [3, 11];

export interface ManifestCheck {
  /** Position in the YAML stream, empty documents not counted. */
  readonly index: number;
  readonly apiVersion: string | null;
  readonly kind: string | null;
  readonly name: string | null;
  readonly ok: boolean;
  /** The first problem, as `path/to/field: message`; null when ok. */
  readonly error: string | null;
}

export interface KubernetesValidator {
  /** Strict schema validation of every document in a YAML stream, built-ins and KEDA kinds. */
  validate(yaml: string, options: { readonly kubeVersion: string }): Promise<ManifestCheck[]>;
}

/**
 * Kubernetes schema validation that works without the internet or a cluster. The schemas
 * come from package registries, pinned: the built-in kinds' JSON schemas from the PyPI package
 * kubernetes-validate (it bundles them per Kubernetes version), installed with its pinned
 * dependencies into a venv in the cache; KEDA's CRDs from the KEDA Go module, checked against
 * its known checksum. The first run takes a few seconds; later runs only check a marker.
 */
export async function ensureKubernetesValidator(
  config: StackConfig,
  report: Reporter,
): Promise<KubernetesValidator> {
  const dir = join(config.cacheDir, `kubernetes-validate-${VERSIONS.kubernetesValidate}`);
  const venv = join(dir, 'venv');
  const python = join(venv, 'bin', 'python');
  const crdDir = join(dir, `keda-${VERSIONS.keda}`);
  const crds = KEDA_CRDS.map((file) => join(crdDir, file));
  const marker = join(dir, '.complete');
  const requirements = join(RESOURCES, 'requirements.txt');
  // The marker holds what was installed: a changed pin reinstalls instead of trusting old files.
  const want = `${hash(await readFile(requirements, 'utf8'))} ${VERSIONS.keda} ${KEDA_MODULE_SUM}\n`;
  const have = existsSync(marker) ? await readFile(marker, 'utf8') : '';
  if (have !== want || !existsSync(python) || !crds.every((f) => existsSync(f))) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await installVenv(dir, venv, requirements, report);
    await fetchKedaCrds(config, crdDir, report);
    await writeFile(marker, want);
  }
  return {
    validate: (yaml, options) => validate(python, crds, yaml, options.kubeVersion),
  };
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

async function installVenv(dir: string, venv: string, requirements: string, report: Reporter) {
  const python3 = await requireCommand('python3', 'Validating Kubernetes manifests');
  const { stdout } = await run(python3, ['-c', 'import sys; print("%d %d" % sys.version_info[:2])']);
  const [major = 0, minor = 0] = stdout.trim().split(' ').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new StackError(
      'TOOL_TOO_OLD',
      `Validating Kubernetes manifests needs Python ${MIN_PYTHON.join('.')}+, but \`${python3}\` is ${major}.${minor}`,
    );
  }
  await runInstallStep(
    {
      component: 'k8s-schemas',
      label: 'creating a Python venv for kubernetes-validate',
      command: python3,
      args: ['-m', 'venv', venv],
      cwd: dir,
      logFile: join(dir, 'venv.log'),
    },
    report,
  );
  await runInstallStep(
    {
      component: 'k8s-schemas',
      label: `installing kubernetes-validate ${VERSIONS.kubernetesValidate} from PyPI (pinned, first run only)`,
      command: join(venv, 'bin', 'pip'),
      args: ['install', '--disable-pip-version-check', '--no-input', '-r', requirements],
      cwd: dir,
      logFile: join(dir, 'pip.log'),
      progressLine: /^(Collecting|Downloading|Installing) /,
      progressNoun: 'packages fetched',
    },
    report,
  );
}

async function fetchKedaCrds(config: StackConfig, crdDir: string, report: Reporter) {
  const go = await requireCommand('go', 'Fetching the KEDA CRD schemas');
  report('k8s-schemas', `fetching the CRDs of ${KEDA_MODULE}@${VERSIONS.keda} from the Go module proxy`);
  let info: { Dir?: string; Sum?: string; Error?: string };
  try {
    // Run outside any module (the cache folder), so no go.mod around decides what is fetched.
    const { stdout } = await run(go, ['mod', 'download', '-json', `${KEDA_MODULE}@${VERSIONS.keda}`], {
      cwd: config.cacheDir,
      env: { ...process.env, GOFLAGS: '', GO111MODULE: 'on' },
      maxBuffer: 1024 * 1024,
    });
    info = JSON.parse(stdout) as typeof info;
  } catch (err) {
    throw new StackError(
      'INSTALL_FAILED',
      `k8s-schemas: go mod download ${KEDA_MODULE}@${VERSIONS.keda} failed: ${(err as Error).message}`,
      { canRetry: true, cause: err },
    );
  }
  if (info.Sum !== KEDA_MODULE_SUM || !info.Dir) {
    throw new StackError(
      'INSTALL_FAILED',
      `k8s-schemas: ${KEDA_MODULE}@${VERSIONS.keda} has checksum ${info.Sum ?? '(none)'}, expected ${KEDA_MODULE_SUM}` +
        (info.Error ? ` (${info.Error})` : ''),
    );
  }
  await mkdir(crdDir, { recursive: true });
  for (const file of KEDA_CRDS) {
    await copyFile(join(info.Dir, 'config', 'crd', 'bases', file), join(crdDir, file));
  }
}

function validate(python: string, crds: readonly string[], yaml: string, kubeVersion: string) {
  const args = [join(RESOURCES, 'validate.py'), '--kube-version', kubeVersion];
  for (const crd of crds) args.push('--crd', crd);
  return new Promise<ManifestCheck[]>((resolve, reject) => {
    const child = spawn(python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', (e) =>
      reject(new StackError('TOOL_MISSING', `k8s-schemas: cannot run ${python}: ${e.message}`)),
    );
    child.once('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      let parsed: { documents?: ManifestCheck[]; error?: string } | undefined;
      try {
        parsed = JSON.parse(stdout) as typeof parsed;
      } catch {
        parsed = undefined;
      }
      // Exit 1 means "some document is invalid": the results say which, so that resolves.
      if ((code === 0 || code === 1) && parsed?.documents) {
        resolve(parsed.documents);
        return;
      }
      const why = parsed?.error ?? (Buffer.concat(err).toString('utf8').trim() || stdout.trim());
      reject(new StackError('BAD_MANIFEST', `k8s-schemas: validation could not run (exit ${code}): ${why}`));
    });
    child.stdin.end(yaml);
  });
}
