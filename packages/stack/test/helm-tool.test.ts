import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSIONS } from '../src/config.ts';
import { helmKubeVersion } from '../src/helm.ts';

const toolModule = join(import.meta.dirname, '../resources/helm-tool');

describe('the helm tool module', () => {
  it('pins the helm version the stack builds, as a tool of a checksummed module', () => {
    const goMod = readFileSync(join(toolModule, 'go.mod'), 'utf8');
    expect(goMod).toMatch(/^tool helm\.sh\/helm\/v3\/cmd\/helm$/m);
    expect(goMod).toContain(`helm.sh/helm/v3 ${VERSIONS.helm}`);
    expect(readFileSync(join(toolModule, 'go.sum'), 'utf8')).toContain(
      `helm.sh/helm/v3 ${VERSIONS.helm} h1:`,
    );
  });

  it('assumes a Kubernetes version the pinned kubernetes-validate has schemas for', async () => {
    // kubernetes-validate X.Y.0 bundles schemas up to Kubernetes X.Y. Bumping helm (and so its
    // client-go) past it would make the chart test validate against schemas it does not have.
    const [major, minor] = VERSIONS.kubernetesValidate.split('.').map(Number);
    const kube = await helmKubeVersion();
    expect(Number(kube.major)).toBe(major);
    expect(Number(kube.minor)).toBeGreaterThan(30);
    expect(Number(kube.minor)).toBeLessThanOrEqual(minor ?? 0);
  });
});
