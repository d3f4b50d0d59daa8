import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { post, TOKENS } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { freePort } from '../support/ports.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

const BIN = resolve(import.meta.dirname, '../../services/cli/bin/hookstream.js');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  KAFKA_BROKERS: endpoints.brokers.join(','),
  REGISTRY_URL: endpoints.registry,
  INGRESS_TOKENS: '',
};
delete env.INGRESS_TOKENS_FILE;
delete env.INGRESS_DEMO;

describe('hookstream ingress', () => {
  it('refuses to start without tokens, naming the setting', async () => {
    const result = await runCli(['ingress'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('BAD_CONFIG: INGRESS_TOKENS: no bearer tokens configured');
  });

  it('refuses a malformed --port or setting, naming it', async () => {
    expect(
      (await runCli(['ingress', '--port', 'eighty'], { ...env, INGRESS_TOKENS: TOKENS.all })).stderr,
    ).toContain('--port: expected a port number');
    const bad = await runCli(['ingress'], {
      ...env,
      INGRESS_TOKENS: TOKENS.all,
      INGRESS_ACK_TIMEOUT_MS: 'soon',
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('INGRESS_ACK_TIMEOUT_MS: ');
  });

  it('serves on --port, accepts an event, and exits 0 after SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'ingress', '--port', String(port)], {
      env: {
        ...env,
        INGRESS_TOKENS: TOKENS.all,
        INGRESS_TOPIC: uniqueName('ingress-cli'),
        INGRESS_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitFor('the ingress to answer /healthz', () =>
        fetch(`${url}/healthz`).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      );
      const answer = await post(`${url}/v1/events`, {
        type: 'key.revoked',
        data: { tenant_id: 't', key_id: 'k' },
      });
      expect(answer.status).toBe(202);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM, shutting down');
  });
});
