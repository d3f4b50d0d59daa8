import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's tag (test/global-setup.ts): in every name a file makes, so leftovers are found. */
    hookstreamRunTag: string;
  }
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * This file's tag: the run's, then the file's own. vitest loads support modules afresh for each
 * test file, so every file has its own. What a file names with it (topics, groups, catalog
 * records, subjects) is removed after its last test (test/support/file-hooks.ts), and the run
 * fails if any of it is still there at the end (test/support/leftovers.ts).
 */
export const fileTag = `${inject('hookstreamRunTag')}${hex(4)}`;

/** A topic, group, subscriber or subject name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${fileTag}${hex(3)}`;
}
