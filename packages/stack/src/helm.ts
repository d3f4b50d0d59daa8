import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type StackConfig, VERSIONS } from './config.ts';
import { StackError } from './errors.ts';
import { runInstallStep } from './install-step.ts';
import type { Reporter } from './progress.ts';
import { withToolLock } from './tool-lock.ts';
import { requireCommand } from './tools.ts';

const TOOL_MODULE = join(import.meta.dirname, '../resources/helm-tool');
const MAIN_PACKAGE = 'helm.sh/helm/v3/cmd/helm';

/** Where the built helm lives; one file per pinned version, so a bump builds afresh. */
export function helmBinaryPath(config: StackConfig): string {
  return join(config.cacheDir, 'bin', `helm-${VERSIONS.helm}`);
}

/**
 * The Kubernetes minor version helm assumes without a cluster (`.Capabilities.KubeVersion`,
 * and what `helm lint` checks deprecated APIs against). helm's Makefile derives it from the
 * client-go it links (v0.N -> 1.N), so it is read from the committed go.mod the same way:
 * a dependency bump cannot leave the two apart.
 */
export async function helmKubeVersion(): Promise<{ major: string; minor: string }> {
  const goMod = await readFile(join(TOOL_MODULE, 'go.mod'), 'utf8');
  const match = /^\s*k8s\.io\/client-go v0\.(\d+)\.\d+/m.exec(goMod);
  if (!match?.[1]) {
    throw new StackError('BAD_CONFIG', `helm: no k8s.io/client-go requirement in ${TOOL_MODULE}/go.mod`);
  }
  return { major: '1', minor: match[1] };
}

/**
 * Returns the path of a helm binary, building it on first use from the Go module proxy.
 * Like Jaeger, it is built from a tool module whose go.mod and go.sum are committed under
 * resources/helm-tool, so the build is pinned and checksummed and needs no download site
 * other than the Go module proxy. The build takes minutes on two cores; after that the
 * cached binary is returned at once.
 */
export async function ensureHelm(config: StackConfig, report: Reporter): Promise<string> {
  const binary = helmBinaryPath(config);
  if (existsSync(binary)) return binary;
  return withToolLock(config, 'helm', report, () => buildHelm(config, report, binary));
}

async function buildHelm(config: StackConfig, report: Reporter, binary: string): Promise<string> {
  if (existsSync(binary)) return binary;
  const go = await requireCommand('go', 'Building helm');
  const build = join(config.cacheDir, 'build', `helm-${VERSIONS.helm}`);
  await mkdir(build, { recursive: true });
  await mkdir(join(config.cacheDir, 'bin'), { recursive: true });
  for (const file of ['go.mod', 'go.sum']) {
    await copyFile(join(TOOL_MODULE, file), join(build, file));
  }
  const kube = await helmKubeVersion();
  // The flags helm's own Makefile sets: without them `helm version` says "unreleased" and
  // templates see Kubernetes 1.20 as the default KubeVersion instead of the linked one.
  const ldflags = [
    '-s',
    '-w',
    `-X helm.sh/helm/v3/internal/version.version=${VERSIONS.helm}`,
    '-X helm.sh/helm/v3/internal/version.metadata=',
    '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
    `-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=${kube.major}`,
    `-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${kube.minor}`,
    `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=${kube.major}`,
    `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${kube.minor}`,
  ].join(' ');
  // A name per process: two test runs building at once must not write the same file.
  const partial = `${binary}.${process.pid}.partial`;
  await runInstallStep(
    {
      component: 'helm',
      label: `building helm ${VERSIONS.helm} from the Go module proxy (first run only, several minutes)`,
      command: go,
      args: ['build', '-v', '-trimpath', '-ldflags', ldflags, '-o', partial, MAIN_PACKAGE],
      cwd: build,
      logFile: join(build, 'build.log'),
      progressLine: /^go: downloading |^[\w.-]+\.[a-z]+\/\S+$|^[a-z]+(\/[\w.-]+)*$/,
      progressNoun: 'modules fetched or packages compiled',
      // The committed go.sum pins every module; never let the build rewrite it. helm is a
      // static Go program (its release builds use CGO_ENABLED=0 too).
      env: { GOFLAGS: '-mod=readonly', CGO_ENABLED: '0' },
      // Tests build it in the background while others run; as Jaeger's build, it comes after them.
      niceness: 10,
    },
    report,
  );
  await rename(partial, binary);
  return binary;
}
