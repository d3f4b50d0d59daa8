import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type StackConfig, VERSIONS } from './config.ts';
import { StackError } from './errors.ts';
import type { Reporter } from './progress.ts';
import { completePythonVenv, ensurePythonVenv, type PythonVenvSpec } from './python-venv.ts';
import { withToolLock } from './tool-lock.ts';
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
export function ensureKubernetesValidator(
  config: StackConfig,
  report: Reporter,
): Promise<KubernetesValidator> {
  return withToolLock(config, 'k8s-schemas', report, () => prepareKubernetesValidator(config, report));
}

async function prepareKubernetesValidator(
  config: StackConfig,
  report: Reporter,
): Promise<KubernetesValidator> {
  const crdDir = (dir: string) => join(dir, `keda-${VERSIONS.keda}`);
  const spec: PythonVenvSpec = {
    component: 'k8s-schemas',
    purpose: 'Validating Kubernetes manifests',
    dir: join(config.cacheDir, `kubernetes-validate-${VERSIONS.kubernetesValidate}`),
    requirements: join(RESOURCES, 'requirements.txt'),
    packages: `kubernetes-validate ${VERSIONS.kubernetesValidate}`,
    extra: `${VERSIONS.keda} ${KEDA_MODULE_SUM}`,
  };
  const crds = KEDA_CRDS.map((file) => join(crdDir(spec.dir), file));
  let venv = await ensurePythonVenv(spec, report);
  if (!venv.fresh && !crds.every((f) => existsSync(f))) {
    await rm(spec.dir, { recursive: true, force: true });
    venv = await ensurePythonVenv(spec, report);
  }
  if (venv.fresh) {
    await fetchKedaCrds(config, crdDir(spec.dir), report);
    await completePythonVenv(spec);
  }
  const { python } = venv;
  return {
    validate: (yaml, options) => validate(python, crds, yaml, options.kubeVersion),
  };
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
