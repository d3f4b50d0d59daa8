import { request } from 'node:http';
import type { LogFn } from '@hookstream/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleServer } from '../src/index.ts';
import { FakeBackend, TOKEN } from './fake-backend.ts';

const PUBLIC = 'https://ops.example.test';
let server: ConsoleServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
});

async function start(extra: { log?: LogFn } = {}): Promise<string> {
  server = new ConsoleServer({
    backend: new FakeBackend(),
    tokens: [TOKEN],
    host: '127.0.0.1',
    port: 0,
    publicOrigins: [PUBLIC],
    ...extra,
  });
  return server.start();
}

/** A login POST through node:http, which sends the Host and source address it is told to. */
function login(
  base: string,
  token: string,
  options: { host?: string; origin?: string; from?: string } = {},
): Promise<{ status: number | undefined; headers: Record<string, string | string[] | undefined> }> {
  const body = new URLSearchParams({ token }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/login`,
      {
        method: 'POST',
        ...(options.from === undefined ? {} : { localAddress: options.from }),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: options.origin ?? base,
          ...(options.host === undefined ? {} : { host: options.host }),
        },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode, headers: res.headers });
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

describe('the console login', () => {
  it('sets a Secure cookie when reached at its https public origin, and not at host:port', async () => {
    const base = await start();
    const viaProxy = await login(base, TOKEN, { host: 'ops.example.test', origin: PUBLIC });
    expect(viaProxy.status).toBe(303);
    expect(String(viaProxy.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Path=\/; Secure;/);
    const direct = await login(base, TOKEN);
    expect(direct.status).toBe(303);
    expect(String(direct.headers['set-cookie'])).not.toContain('Secure');
  });

  it('answers the 11th login of a minute from one address 429 with Retry-After, even with the right token', async () => {
    const lines: string[] = [];
    const base = await start({ log: (level, message) => lines.push(`${level} ${message}`) });
    for (let i = 0; i < 10; i++)
      expect((await login(base, 'wrong-token-0123456789', { from: '127.0.0.2' })).status).toBe(401);
    const throttled = await login(base, TOKEN, { from: '127.0.0.2' });
    expect(throttled.status).toBe(429);
    expect(throttled.headers['set-cookie']).toBeUndefined();
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await login(base, TOKEN, { from: '127.0.0.2' })).status).toBe(429);
    expect(lines).toEqual(['warn console logins throttled for a client address']);
    // Another address is not held back by that one.
    expect((await login(base, TOKEN, { from: '127.0.0.1' })).status).toBe(303);
  });
});
