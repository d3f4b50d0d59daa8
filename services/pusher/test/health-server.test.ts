import { afterEach, describe, expect, it } from 'vitest';
import { HealthServer } from '../src/health-server.ts';

describe('HealthServer', () => {
  let server: HealthServer;
  afterEach(() => server.close());

  it('answers 503 until the pusher started, 200 while it runs, 503 after a failure', async () => {
    server = new HealthServer();
    const port = await server.listen(0, '127.0.0.1');
    const status = async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
    expect(await status()).toBe(503);
    server.healthy = true;
    expect(await status()).toBe(200);
    server.healthy = false;
    expect(await status()).toBe(503);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
  });

  it('answers /readyz exactly as /healthz, for Kubernetes readiness probes', async () => {
    server = new HealthServer();
    const port = await server.listen(0, '127.0.0.1');
    const both = async () =>
      Promise.all(
        ['/healthz', '/readyz'].map(async (p) => (await fetch(`http://127.0.0.1:${port}${p}`)).status),
      );
    expect(await both()).toEqual([503, 503]);
    server.healthy = true;
    expect(await both()).toEqual([200, 200]);
    server.healthy = false;
    expect(await both()).toEqual([503, 503]);
    // Only the two paths: a near miss is still not found.
    expect((await fetch(`http://127.0.0.1:${port}/readyz/x`)).status).toBe(404);
  });
});
