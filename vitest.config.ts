import { defineConfig } from 'vitest/config';
import JaegerLastSequencer from './test/jaeger-last-sequencer.ts';

// Integration tests against the real local stack. Each package runs its own unit tests
// (`turbo run test`); this config covers test/ at the repository root.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The stack is shared and the machine has two cores: files run one after another.
    fileParallelism: false,
    // Files that read traces last, while Jaeger may still be building (global-setup.ts).
    sequence: { sequencer: JaegerLastSequencer },
  },
});
