import { spawn } from 'node:child_process';
import { childProfileFlags } from './bench-profiling.ts';

/** A server in a process of its own, at the URL it printed. */
export interface ChildService {
  readonly url: string;
  /** Its process id, for its CPU and memory in /proc (proc-usage.ts). */
  readonly pid: number;
  /** Where it serves /metrics, when it printed `metrics <url>` before its URL. */
  readonly metricsUrl?: string;
  stop(): Promise<void>;
}

/**
 * Starts `script` (a .ts file next to this one) with `env` added to this process's, and resolves
 * once it printed the http:// URL it listens at on stdout (a `metrics <url>` line before it names
 * its /metrics). With HOOKSTREAM_BENCH_PROFILE_DIR set
 * it writes a CPU profile there when it exits.
 */
export async function spawnListening(
  script: URL,
  env: Record<string, string>,
  what: string,
): Promise<ChildService> {
  const child = spawn(process.execPath, [...childProfileFlags(), script.pathname], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('http://'));
      if (line) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before listening`)));
  });
  const metricsUrl = out
    .split('\n')
    .find((l) => l.startsWith('metrics '))
    ?.slice('metrics '.length)
    .trim();
  return {
    url,
    pid: child.pid ?? 0,
    ...(metricsUrl === undefined ? {} : { metricsUrl }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
