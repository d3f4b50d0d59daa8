import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { trackChild } from './child-logs.ts';

const BIN = resolve(import.meta.dirname, '../../services/cli/bin/hookstream.js');

/**
 * The real `hookstream` command as a long-running child process (e.g. a pusher to kill); `bin`:
 * another release's command (test/support/old-release.ts).
 */
export function spawnCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  bin: string = BIN,
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
