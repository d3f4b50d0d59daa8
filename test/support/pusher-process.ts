import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, spawnCli } from './child.ts';
import { endpoints } from './stack.ts';
import { waitFor } from './wait.ts';

export interface PusherProcess {
  /** Everything the process wrote so far, stdout and stderr together. */
  output(): string;
  /** The /metrics URL when started with a metrics port. */
  readonly metricsUrl: string | undefined;
  /** SIGTERM, then the exit code (the process flushes its spans on the way out). */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing flushed or committed on the way out. */
  crash(): Promise<void>;
}

/**
 * `hookstream push` in its own process, as an operator runs it: the definition written to a
 * temporary file, tracing to the stack's Jaeger, settings from `env`. Resolves once the pusher
 * joined its group (it logs `pusher started`).
 */
export async function spawnPusherCli(
  topic: string,
  definition: Record<string, unknown>,
  options: {
    env?: Record<string, string>;
    args?: readonly string[];
    metricsPort?: number;
    /** Another release's `hookstream` command (test/support/old-release.ts). */
    bin?: string;
  } = {},
): Promise<PusherProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-pusher-'));
  const config = join(dir, `${String(definition.name)}.json`);
  await writeFile(config, JSON.stringify({ allowPrivateNetwork: true, start: 'earliest', ...definition }));
  const args = ['push', '--config', config, '--topic', topic, ...(options.args ?? [])];
  if (options.metricsPort !== undefined) args.push('--metrics-port', String(options.metricsPort));
  const child = spawnCli(
    args,
    {
      ...process.env,
      KAFKA_BROKERS: endpoints.brokers.join(','),
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoints.otlpTraces,
      ...options.env,
    },
    options.bin,
  );
  const done = exited(child);
  try {
    await waitFor(
      'the pusher to join its group',
      async () => {
        if (child.exitCode !== null)
          throw new Error(`the pusher exited with ${child.exitCode}: ${child.output()}`);
        return child.output().includes('"msg":"pusher started"') ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
  } catch (err) {
    child.kill('SIGTERM');
    await done;
    throw err;
  }
  return {
    output: () => child.output(),
    metricsUrl:
      options.metricsPort === undefined ? undefined : `http://127.0.0.1:${options.metricsPort}/metrics`,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return (await done).code;
    },
    crash: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await done;
    },
  };
}
