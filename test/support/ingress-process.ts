import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { trackChild } from './child-logs.ts';
import { TOKENS } from './ingress.ts';
import { freePort } from './ports.ts';
import { endpoints } from './stack.ts';
import { waitFor } from './wait.ts';

const BIN = resolve(import.meta.dirname, '../../services/cli/bin/hookstream.js');

export interface IngressProcess {
  readonly url: string;
  /** Everything the process wrote so far (stdout, stderr). */
  output(): { stdout: string; stderr: string };
  /** SIGTERM, then waits for the exit code (the process flushes its spans on the way out). */
  stop(): Promise<number | null>;
}

/**
 * `hookstream ingress` in its own process, as an operator runs it: tokens from INGRESS_TOKENS,
 * tracing and logging configured by the environment given here.
 */
export async function spawnIngressCli(
  topic: string,
  env: Record<string, string> = {},
): Promise<IngressProcess> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    INGRESS_TOKENS: `${TOKENS.all},${TOKENS.keysOnly}=key.revoked`,
    INGRESS_TOPIC: topic,
    INGRESS_TOPIC_PARTITIONS: '3',
    KAFKA_BROKERS: endpoints.brokers.join(','),
    REGISTRY_URL: endpoints.registry,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoints.otlpTraces,
    ...env,
  };
  delete childEnv.INGRESS_TOKENS_FILE;
  delete childEnv.INGRESS_DEMO;
  const child = spawn(process.execPath, [BIN, 'ingress', '--port', String(port)], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  trackChild(['ingress', topic], () => `${stdout}${stderr}`);
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor('the ingress to answer /healthz', async () => {
      if (child.exitCode !== null) throw new Error(`the ingress exited with ${child.exitCode}: ${stderr}`);
      return fetch(`${url}/healthz`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      );
    });
  } catch (err) {
    child.kill('SIGTERM');
    await exited;
    throw err;
  }
  return {
    url,
    output: () => ({ stdout, stderr }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
