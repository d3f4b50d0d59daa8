import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, afterEach, expect, inject } from 'vitest';
import { childLogs } from './child-logs.ts';
import { removeLeftovers } from './leftovers.ts';
import { fileTag } from './names.ts';
import { endpoints } from './stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the logs of a failed test's child processes go (test/global-setup.ts). */
    hookstreamLogsDir: string;
  }
}

/**
 * Hooks every root test file gets (vitest `setupFiles`). Registered before the file's own hooks,
 * so they run after its afterAll hooks stopped what the file started.
 */

// A failed test's children's logs, written at once so a crash later in the file loses nothing.
afterEach(async (context) => {
  if (context.task.result?.state !== 'fail' || childLogs().length === 0) return;
  const file = basename(expect.getState().testPath ?? 'unknown');
  const dir = join(inject('hookstreamLogsDir'), file.replace(/\.test\.ts$/, ''));
  await mkdir(dir, { recursive: true });
  const test = context.task.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80);
  await Promise.all(
    childLogs().map((child, i) =>
      writeFile(join(dir, `${test}.${i + 1}-${child.what.replace(/\W+/g, '-')}.log`), child.output()),
    ),
  );
});

// What the file named with its tag goes, whether its tests passed or not: the shared stack
// keeps no test's topics, groups, catalog records or subjects. A group that a killed member still
// holds until its session times out (30 s) is deleted at the run's end (test/global-setup.ts),
// long after: waiting for it here held the next file back that long.
afterAll(async () => {
  await removeLeftovers(endpoints, fileTag, { waitForGroups: false });
}, 120_000);
