import { join } from 'node:path';
import type { StackConfig } from './config.ts';
import type { Reporter } from './progress.ts';
import { withStackLock } from './stack-lock.ts';

/** A cold helm build takes minutes on two cores; a waiter gives up well after that. */
const TOOL_LOCK_TIMEOUT_MS = 20 * 60_000;

/**
 * Runs a tool's install or build while holding that tool's lock in the cache, so two processes
 * (the test runner preparing it in the background, and a test file that needs it) never build
 * or apt-get the same thing at once: the second waits, then finds it done.
 */
export function withToolLock<T>(
  config: StackConfig,
  tool: string,
  report: Reporter,
  work: () => Promise<T>,
): Promise<T> {
  return withStackLock(join(config.cacheDir, 'locks', tool), `installing ${tool}`, work, {
    report,
    timeoutMs: TOOL_LOCK_TIMEOUT_MS,
  });
}
