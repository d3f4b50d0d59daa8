import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { trackChild } from './child-logs.ts';

const BIN = resolve(import.meta.dirname, '../../services/cli/bin/hookstream.js');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real `hookstream` command in a child process with the given environment. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      trackChild(args, () => `${stdout}${stderr}\n(exit ${code})\n`);
      done({ code, stdout, stderr });
    });
  });
}
