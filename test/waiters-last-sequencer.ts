import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that wait for something the run builds in the background go last: on a fresh machine
 * Jaeger, helm, Chromium and the Python venvs are still being built or installed when the suite
 * starts (test/runner/main.ts starts them), and every other file runs in that time. When all of
 * them are ready at the start, npm test says so and the order is vitest's (larger files first).
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
    // npm test says when everything is built already (test/runner/main.ts).
    if (process.env.HOOKSTREAM_TEST_WAITERS_LAST === '0') return sorted;
    const waits = (spec: TestSpecification) => {
      const source = readFileSync(spec.moduleId, 'utf8');
      return WAITS.some((w) => source.includes(w));
    };
    return [...sorted.filter((s) => !waits(s)), ...sorted.filter(waits)];
  }
}
