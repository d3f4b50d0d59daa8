import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StackError } from './errors.ts';

const run = promisify(execFile);

const INSTALL_HINTS: Record<string, string> = {
  java: 'install a Java 17+ runtime (Debian: apt-get install openjdk-17-jre-headless)',
  mvn: 'install Apache Maven (Debian: apt-get install maven)',
  go: 'install Go 1.24+ (https://go.dev/dl) or set HOOKSTREAM_JAEGER=off',
  tar: 'install tar',
  python3: 'install Python 3.11+ with its venv module (Debian: apt-get install python3 python3-venv)',
};

/** Resolves the absolute path of a command on PATH, or null. */
export async function whichCommand(command: string): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this PATH entry
    }
  }
  return null;
}

export async function requireCommand(command: string, neededFor: string): Promise<string> {
  const found = await whichCommand(command);
  if (found) return found;
  const hint = INSTALL_HINTS[command] ?? `install ${command}`;
  throw new StackError('TOOL_MISSING', `${neededFor} needs \`${command}\`, which is not on PATH: ${hint}`);
}

/** Checks `java -version` reports at least the given major version. */
export async function requireJava(minMajor: number, neededFor: string): Promise<string> {
  const java = await requireCommand('java', neededFor);
  const { stderr } = await run(java, ['-version']);
  const match = /version "(\d+)(?:\.(\d+))?/.exec(stderr);
  const first = Number(match?.[1] ?? 0);
  // Java 8 and older report "1.8.0"; the major is then the second number.
  const major = first === 1 ? Number(match?.[2] ?? 0) : first;
  if (major < minMajor) {
    throw new StackError(
      'TOOL_TOO_OLD',
      `${neededFor} needs Java ${minMajor}+, but \`${java}\` is Java ${major}: ${INSTALL_HINTS.java}`,
    );
  }
  return java;
}
