import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bypassesProxy, type EgressProxy, parseEgressProxy } from '../src/egress-proxy.ts';
import { newPool } from '../src/origin-pools.ts';

// The proxy connector against a real local CONNECT proxy and a real HTTP server, both on loopback.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

/** A CONNECT proxy that records its tunnels' targets. */
async function proxyServer(): Promise<{ url: string; targets: string[] }> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer();
  server.on('connect', (req, client: Socket) => {
    targets.push(req.url ?? '');
    const [host = '', port = '0'] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
  });
  const port = await listen(server);
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${port}`, targets };
}

async function echoServer(): Promise<string> {
  const server = createHttpServer((req, res) => res.end(`echo ${req.method} ${req.url}`));
  const port = await listen(server);
  closers.push(() => new Promise((r) => server.close(() => r())));
  return `http://127.0.0.1:${port}`;
}

const proxyAt = (url: string, noProxy = ''): EgressProxy => {
  const proxy = parseEgressProxy({ HOOKSTREAM_EGRESS_PROXY: url, NO_PROXY: noProxy });
  if (proxy === null) throw new Error('no proxy');
  return proxy;
};

describe('the egress proxy connector', () => {
  it('carries a request through a CONNECT tunnel to the checked address', async () => {
    const proxy = await proxyServer();
    const origin = await echoServer();
    const pool = newPool(
      { origin, allowPrivateNetwork: true, connectTimeoutMs: 2000, proxy: proxyAt(proxy.url) },
      1,
    );
    closers.push(() => pool.close());
    const res = await pool.request({ method: 'POST', path: '/hook', body: 'x' });
    expect(await res.body.text()).toBe('echo POST /hook');
    expect(proxy.targets).toEqual([new URL(origin).host]);
  });

  it('refuses a private destination before the proxy is asked to connect', async () => {
    const proxy = await proxyServer();
    const origin = await echoServer();
    const pool = newPool(
      { origin, allowPrivateNetwork: false, connectTimeoutMs: 2000, proxy: proxyAt(proxy.url) },
      1,
    );
    closers.push(() => pool.close());
    await expect(pool.request({ method: 'POST', path: '/', body: 'x' })).rejects.toMatchObject({
      code: 'EPRIVATEADDR',
    });
    expect(proxy.targets).toEqual([]);
  });

  it('says a proxy that cannot be reached is the proxy’s failure (EGRESS_PROXY_UNREACHABLE)', async () => {
    const closed = createHttpServer();
    const port = await listen(closed);
    await new Promise((r) => closed.close(r));
    const origin = await echoServer();
    const pool = newPool(
      {
        origin,
        allowPrivateNetwork: true,
        connectTimeoutMs: 2000,
        proxy: proxyAt(`http://127.0.0.1:${port}`),
      },
      1,
    );
    closers.push(() => pool.close());
    await expect(pool.request({ method: 'POST', path: '/', body: 'x' })).rejects.toMatchObject({
      code: 'EGRESS_PROXY_UNREACHABLE',
    });
  });

  it('goes direct for a host NO_PROXY names', async () => {
    const proxy = await proxyServer();
    const origin = await echoServer();
    const pool = newPool(
      {
        origin,
        allowPrivateNetwork: true,
        connectTimeoutMs: 2000,
        proxy: proxyAt(proxy.url, 'localhost,127.0.0.1'),
      },
      1,
    );
    closers.push(() => pool.close());
    const res = await pool.request({ method: 'POST', path: '/', body: 'x' });
    expect(await res.body.text()).toBe('echo POST /');
    expect(proxy.targets).toEqual([]);
  });
});

describe('parseEgressProxy and NO_PROXY', () => {
  it('is null without the variable, and refuses what is not http://host:port', () => {
    expect(parseEgressProxy({})).toBeNull();
    for (const bad of ['proxy:3128', 'https://p:3128', 'http://p', 'http://p:3128/path'])
      expect(() => parseEgressProxy({ HOOKSTREAM_EGRESS_PROXY: bad }), bad).toThrow(
        /HOOKSTREAM_EGRESS_PROXY/,
      );
  });

  it.each([
    ['http://user:s3cret@proxy.internal:31280000', 'http://REDACTED@proxy.internal:31280000'],
    ['http://user:s3#cret@proxy.internal:3128', 'http://REDACTED@proxy.internal:3128'],
    ['http://user:s3/cret@proxy.internal:3128', 'http://REDACTED@proxy.internal:3128'],
  ])('passwords are not echoed: HOOKSTREAM_EGRESS_PROXY=%s, not a URL, shows as %s', (raw, shown) => {
    let message = '';
    try {
      parseEgressProxy({ HOOKSTREAM_EGRESS_PROXY: raw });
    } catch (err) {
      expect(err).toMatchObject({ code: 'BAD_EGRESS_PROXY', canRetry: false });
      message = (err as Error).message;
    }
    expect(message).toBe(`HOOKSTREAM_EGRESS_PROXY: not a URL: '${shown}'`);
    expect(message).not.toContain('s3');
  });

  it.each([
    ['*', 'api.example.com', true],
    ['example.com', 'api.example.com', true],
    ['.example.com', 'example.com', true],
    ['example.com', 'badexample.com', false],
    ['other.org', 'api.example.com', false],
  ])('NO_PROXY=%s for %s: %s', (noProxy, host, bypass) => {
    expect(bypassesProxy(proxyAt('http://p:3128', noProxy), host)).toBe(bypass);
  });
});
