import { spawn } from 'node:child_process';
import type { ConnectionSettings } from '@hookstream/contracts';
import { childProfileFlags } from './bench-profiling.ts';
import { connectionEnv } from './child-env.ts';

export interface IngressChildOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  readonly topic: string;
  readonly token: string;
}

export interface ChildService {
  readonly url: string;
  stop(): Promise<void>;
}

/** The ingress under test in its own process (its own event loop, as in production). */
export async function spawnIngress(options: IngressChildOptions): Promise<ChildService> {
  const script = new URL('./ingress-process.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, [...childProfileFlags(), script], {
    env: {
      ...process.env,
      INGRESS_TOKENS: options.token,
      INGRESS_TOPIC: options.topic,
      INGRESS_LOG_LEVEL: 'warn',
      ...connectionEnv(options.connection),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((l) => l.startsWith('http://'));
      if (line) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`the ingress exited with ${code} before listening`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
