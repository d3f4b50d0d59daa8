import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KeepAliveConnection, postRequest } from '../src/keep-alive-connection.ts';

let server: Server | undefined;
afterEach(() => server?.close());

function listen(keepAliveTimeout: number): Promise<number> {
  const created = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(202, { 'content-length': '2' }).end('ok'));
  });
  created.keepAliveTimeout = keepAliveTimeout;
  server = created;
  return new Promise((ok) =>
    created.listen(0, '127.0.0.1', () => ok((created.address() as AddressInfo).port)),
  );
}

describe('KeepAliveConnection', () => {
  it('sends again after the server closed the idle connection (its keep-alive timeout)', async () => {
    const port = await listen(50);
    const connection = new KeepAliveConnection('127.0.0.1', port);
    const request = postRequest('127.0.0.1', port, '/v1/events', 't', '{}');
    expect(await connection.send(request)).toBe(202);
    // What the ingress's keep-alive timeout does between two benchmark runs.
    server?.closeIdleConnections();
    await new Promise((ok) => setTimeout(ok, 100));
    expect(await connection.send(request)).toBe(202);
    connection.close();
  });

  it('answers 0 when nothing listens', async () => {
    const port = await listen(50);
    server?.close();
    await new Promise((ok) => setTimeout(ok, 50));
    const connection = new KeepAliveConnection('127.0.0.1', port);
    expect(await connection.send(postRequest('127.0.0.1', port, '/', 't', '{}'))).toBe(0);
    connection.close();
  });
});
