import { defineConfig } from 'vitest/config';
import WaitersLastSequencer from './test/waiters-last-sequencer.ts';

/**
 * Integration tests against the real local stack. Each package runs its own unit tests
 * (`turbo run test`); this config covers test/ at the repository root, in two projects:
 *
 * - `shared`: files that only use the shared stack, under names and ports of their own
 *   (test/support/names.ts, ports.ts; test/layout.test.ts checks it). They run side by side.
 * - `exclusive` (test/exclusive/): files that need the machine to themselves: private brokers,
 *   kills of the stack's servers, wall-clock rate, memory and session-timeout bounds. They run
 *   one at a time, after the shared ones.
 *
 * `npm test` (test/runner/main.ts) runs the phases with the worker counts CONTRIBUTING.md gives;
 * a plain `npx vitest run` runs one file at a time, which is always safe.
 */
const shared = ['test/*.test.ts', 'test/integration/**/*.test.ts', 'test/scenarios/**/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/support/file-hooks.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // Files that wait for a background toolchain (Jaeger, helm, Chromium, a venv) run last.
    sequence: { sequencer: WaitersLastSequencer },
    projects: [
      { extends: true, test: { name: 'shared', include: shared } },
      { extends: true, test: { name: 'exclusive', include: ['test/exclusive/**/*.test.ts'] } },
    ],
  },
});
