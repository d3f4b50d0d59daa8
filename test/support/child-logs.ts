/**
 * The output of every `hookstream` child process a test file started, so that when a test fails
 * its children's logs can be written out (file-hooks.ts) and read without a rerun.
 */
export interface ChildLog {
  /** What ran: the command's first words. */
  readonly what: string;
  readonly output: () => string;
}

const children: ChildLog[] = [];

/** Remembers a child's output until the file ends (module state is per test file). */
export function trackChild(args: readonly string[], output: () => string): void {
  children.push({ what: args.slice(0, 2).join(' '), output });
}

/** The children started so far by this file, oldest first. */
export function childLogs(): readonly ChildLog[] {
  return children;
}
