import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConnectionSettings } from '@hookstream/contracts';
import { connectionEnv } from './child-env.ts';

export interface PusherChildOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  readonly topic: string;
  /** A subscriber definition as `hookstream push --config` reads it. */
  readonly definition: Record<string, unknown>;
  /** The whsec_ secret the definition's `secret.env` names. */
  readonly secretEnv: Record<string, string>;
  /** A folder for the definition file. */
  readonly dir: string;
  readonly redisUrl?: string | undefined;
}

export interface PusherChild {
  /** Its process id, for its CPU and memory in /proc (proc-usage.ts). */
  readonly pid: number;
  /** Resolves with the pusher's delivery counts once it stopped. */
  stop(): Promise<{ acknowledged?: number }>;
}

/** Starts a pusher process and resolves once its consumer group is positioned. */
export async function spawnPusher(options: PusherChildOptions, index = 0): Promise<PusherChild> {
  const file = join(options.dir, `subscriber-${index}.json`);
  await writeFile(file, JSON.stringify(options.definition));
  const child = spawn(process.execPath, [new URL('./pusher-process.ts', import.meta.url).pathname], {
    env: {
      ...process.env,
      ...options.secretEnv,
      BENCH_PUSHER_DEFINITION: file,
      BENCH_PUSHER_TOPIC: options.topic,
      BENCH_PUSHER_REDIS: options.redisUrl ?? '',
      ...connectionEnv(options.connection),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (out.includes('started\n')) {
        child.stdout.off('data', check);
        resolve();
      }
    };
    child.stdout.on('data', check);
    void exited.then(([code]) => reject(new Error(`the pusher exited with ${code} before it started`)));
  });
  return {
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      const last = out.trim().split('\n').at(-1) ?? '{}';
      try {
        return JSON.parse(last) as { acknowledged?: number };
      } catch {
        return {};
      }
    },
  };
}
