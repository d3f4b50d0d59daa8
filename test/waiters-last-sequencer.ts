import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { slowRank } from './runner/slow-files.ts';
import { waitsForBackground } from './runner/waiters.ts';

/**
 * Files that wait for something the run builds in the background go last: on a fresh machine
 * Jaeger, helm, Chromium and the Python venvs are still being built or installed when the suite
 * starts (test/runner/main.ts starts them), and every other file runs in that time. When all of
 * them are ready at the start, npm test says so and the slowest files go first, then vitest's
 * order (larger files first).
 */
export default class WaitersLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // The slowest files first (test/runner/slow-files.ts); Array.prototype.sort is stable.
    const sorted = (await super.sort(files)).sort((a, b) => slowRank(a.moduleId) - slowRank(b.moduleId));
    // npm test says when everything is built already (test/runner/main.ts).
    if (process.env.HOOKSTREAM_TEST_WAITERS_LAST === '0') return sorted;
    const waits = (spec: TestSpecification) => waitsForBackground(spec.moduleId);
    return [...sorted.filter((s) => !waits(s)), ...sorted.filter(waits)];
  }
}
