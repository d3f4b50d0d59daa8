import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { waitsForBackground } from './runner/waiters.ts';

/**
 * Files that wait for something the run builds in the background go last: on a fresh machine
 * Jaeger, helm, Chromium and the Python venvs are still being built or installed when the suite
 * starts (test/runner/main.ts starts them), and every other file runs in that time. When all of
 * them are ready at the start, npm test says so and the order is vitest's (larger files first).
 */
export default class WaitersLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // npm test says when everything is built already (test/runner/main.ts).
    if (process.env.HOOKSTREAM_TEST_WAITERS_LAST === '0') return sorted;
    const waits = (spec: TestSpecification) => waitsForBackground(spec.moduleId);
    return [...sorted.filter((s) => !waits(s)), ...sorted.filter(waits)];
  }
}
