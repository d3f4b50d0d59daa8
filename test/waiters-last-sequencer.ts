import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that wait for something the run builds in the background go last: on a fresh machine
 * Jaeger, helm, Chromium and the Python venvs are still being built or installed when the suite
 * starts (test/run-phases.ts starts them), and every other file runs in that time.
 */
const WAITS = [
  '/support/tracing-backend.ts',
  'ensureHelm',
  'ensureChromium',
  'ensureKubernetesValidator',
  'ensureOpenApiTools',
];

export default class WaitersLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (spec: TestSpecification) => {
      const source = readFileSync(spec.moduleId, 'utf8');
      return WAITS.some((w) => source.includes(w));
    };
    return [...sorted.filter((s) => !waits(s)), ...sorted.filter(waits)];
  }
}
