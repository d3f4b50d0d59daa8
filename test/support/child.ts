import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { trackChild } from './child-logs.ts';

const BIN = resolve(import.meta.dirname, '../../services/cli/bin/hookstream.js');
/** When this file's tests began (the module loads with the file): nothing older is theirs. */
const FILE_STARTED_MS = Date.now();

/**
 * A `hookstream api` keeps a portal index in a directory no other process may share, and builds
 * it from the attempt log, which on a machine that ran benchmarks holds millions of entries of
 * no test. Unless a test chose them, each API child gets a directory of its own and indexes only
 * what this file's tests can have written (its start, a minute before for clocks). Another
 * release's command is left as it is: it may know neither option.
 */
function apiArgs(args: readonly string[], env: NodeJS.ProcessEnv): readonly string[] {
  if (args[0] !== 'api') return args;
  const extra: string[] = [];
  if (!args.includes('--portal-store') && env.HOOKSTREAM_PORTAL_STORE === undefined)
    extra.push('--portal-store', mkdtempSync(join(tmpdir(), 'hookstream-test-portal-')));
  if (!args.includes('--portal-index-since')) {
    const minutes = Math.ceil((Date.now() - FILE_STARTED_MS) / 60_000) + 1;
    extra.push('--portal-index-since', `${minutes}m`);
  }
  return [...args, ...extra];
}

/**
 * The real `hookstream` command as a long-running child process (e.g. a pusher to kill); `bin`:
 * another release's command (test/support/old-release.ts).
 */
export function spawnCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  bin: string = BIN,
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [bin, ...(bin === BIN ? apiArgs(args, env) : args)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString();
  });
  trackChild(args, () => output);
  return Object.assign(child, { output: () => output });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((ok) => child.once('exit', (code, signal) => ok({ code, signal })));
}
