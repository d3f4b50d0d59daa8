import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dispatchAttempt } from '../src/attempt-dispatch.ts';
import { HttpClient } from '../src/http-client.ts';
import { OriginPools } from '../src/origin-pools.ts';
import { parseSigningSecret } from '../src/signing.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

describe('HttpClient against a real local server', () => {
  let server: Server;
  let base: string;
  let handler: Handler = (_req, _body, res) => res.writeHead(204).end();
  const seen: { headers: IncomingMessage['headers']; body: string }[] = [];
  const secret = `whsec_${randomBytes(24).toString('base64')}`;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        seen.push({ headers: req.headers, body });
        handler(req, body, res);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  // 10 s where the deadline is not what is tested: an answer that must come is not raced against
  // a loaded machine (the test's own timeout still bounds the wait).
  const client = (path = '/hook', timeoutMs = 10_000, extra = {}) =>
    new HttpClient({
      url: `${base}${path}`,
      timeoutMs,
      connections: 2,
      allowPrivateNetwork: true,
      signingKey: parseSigningSecret(secret),
      extraHeaders: { 'x-tenant': 'acme' },
      ...extra,
    });

  it('posts the body with the contract headers, signed so standardwebhooks verifies it', async () => {
    handler = (_req, _body, res) => res.writeHead(204).end();
    const c = client('/hook?x=1');
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const report = await c.send({ eventId: 'evt-42', body: '{"event_id":"evt-42"}', traceparent });
    await c.close();
    expect(report).toMatchObject({ kind: 'response', status: 204 });
    const last = seen.at(-1);
    expect(last?.body).toBe('{"event_id":"evt-42"}');
    expect(last?.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'evt-42',
      'idempotency-key': 'evt-42',
      traceparent,
      'x-tenant': 'acme',
    });
    const headers = {
      'webhook-id': String(last?.headers['webhook-id']),
      'webhook-timestamp': String(last?.headers['webhook-timestamp']),
      'webhook-signature': String(last?.headers['webhook-signature']),
    };
    expect(new Webhook(secret).verify(last?.body ?? '', headers)).toEqual({ event_id: 'evt-42' });
  });

  it('signs with every key of a rotation, so a receiver holding either secret verifies', async () => {
    handler = (_req, _body, res) => res.writeHead(204).end();
    const next = `whsec_${randomBytes(32).toString('base64')}`;
    const c = client('/hook', undefined, {
      signingKeys: [parseSigningSecret(next), parseSigningSecret(secret)],
    });
    await c.send({ eventId: 'evt-rot', body: '{"event_id":"evt-rot"}' });
    await c.close();
    const last = seen.at(-1);
    const headers = {
      'webhook-id': String(last?.headers['webhook-id']),
      'webhook-timestamp': String(last?.headers['webhook-timestamp']),
      'webhook-signature': String(last?.headers['webhook-signature']),
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const s of [next, secret])
      expect(new Webhook(s).verify(last?.body ?? '', headers)).toEqual({ event_id: 'evt-rot' });
  });

  it('reports the status and Retry-After of a 429, and a short excerpt of the body', async () => {
    handler = (_req, _body, res) => res.writeHead(429, { 'retry-after': '2' }).end('slow down please');
    const c = client();
    const report = await c.send({ eventId: 'e', body: '{}' });
    await c.close();
    expect(report).toMatchObject({
      kind: 'response',
      status: 429,
      retryAfter: '2',
      excerpt: 'slow down please',
    });
  });

  it('does not follow redirects', async () => {
    handler = (req, _body, res) =>
      req.url === '/moved' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(204).end();
    const before = seen.length;
    const c = client('/moved');
    const report = await c.send({ eventId: 'e', body: '{}' });
    await c.close();
    expect(report).toMatchObject({ kind: 'response', status: 302 });
    expect(seen.length - before).toBe(1);
  });

  it('reads at most maxBodyBytes of an endless answer and keeps only the excerpt', async () => {
    handler = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      // Far more than the limit; the client must stop reading and drop the connection.
      const pump = () => {
        while (res.write(chunk)) if (res.writableLength > 10 * 1024 * 1024) return;
        res.once('drain', pump);
      };
      res.on('error', () => undefined);
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    };
    const c = client('/hook', undefined, { maxBodyBytes: 64 * 1024, excerptBytes: 10 });
    const report = await c.send({ eventId: 'e', body: '{}' });
    await c.close();
    expect(report).toMatchObject({ kind: 'response', status: 200, excerpt: 'xxxxxxxxxx' });
  });

  it('redacts what an echoing endpoint sends back of the request: the signature, the secret, header values', async () => {
    const apiKey = 'key_0123456789abcdef';
    handler = (req, _body, res) =>
      res.writeHead(400).end(
        JSON.stringify({
          signature: req.headers['webhook-signature'],
          key: req.headers['x-api-key'],
          authorization: req.headers.authorization,
          secret,
        }),
      );
    const c = client('/hook', undefined, {
      excerptBytes: 1024,
      extraHeaders: { 'x-api-key': apiKey, authorization: `Token ${apiKey}-t` },
    });
    const report = await c.send({ eventId: 'evt-echo', body: '{}' });
    await c.close();
    const sent = seen.at(-1)?.headers;
    expect(report.kind).toBe('response');
    expect(report.excerpt).toBe(
      '{"signature":"[redacted]","key":"[redacted]","authorization":"[redacted]","secret":"[redacted]"}',
    );
    for (const value of [sent?.['webhook-signature'], apiKey, secret])
      expect(report.excerpt).not.toContain(value);
  });

  // Deadlines run on a fake clock (setTimeout and performance.now only; the sockets stay real),
  // and the server holds its answers until the test lets them go: a real 300 ms deadline raced a
  // real server delay and, for the answers that must arrive, a machine busy with other work.
  const deadlineClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });

  /** Holds every request's answer until release(); arrived resolves at the n-th request. */
  function holdAnswers() {
    const held: ServerResponse[] = [];
    const waiters: { n: number; ok: () => void }[] = [];
    handler = (_req, _body, res) => {
      // The client may have dropped the connection by the time it is released.
      res.on('error', () => undefined);
      held.push(res);
      for (const w of waiters) if (held.length >= w.n) w.ok();
    };
    return {
      arrived: (n: number) => new Promise<void>((ok) => (held.length >= n ? ok() : waiters.push({ n, ok }))),
      release: () => {
        for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(204).end();
      },
    };
  }

  it('turns a slow endpoint into a timeout', async () => {
    deadlineClock();
    const hold = holdAnswers();
    const c = client('/hook', 300);
    try {
      const sent = c.send({ eventId: 'e', body: '{}' });
      await hold.arrived(1);
      await vi.advanceTimersByTimeAsync(300);
      const report = await sent;
      expect(report.kind).toBe('timeout');
      // The deadline, not the endpoint, ended it.
      expect(report.durationMs).toBe(300);
    } finally {
      hold.release();
      vi.useRealTimers();
      await c.close();
    }
  });

  it('counts the wait for a connection within the timeout', async () => {
    deadlineClock();
    const hold = holdAnswers();
    // One connection: the second attempt waits behind the first, past its deadline.
    const c = client('/hook', 300, { connections: 1 });
    try {
      const both = Promise.all([c.send({ eventId: 'a', body: '{}' }), c.send({ eventId: 'b', body: '{}' })]);
      await hold.arrived(1);
      await vi.advanceTimersByTimeAsync(300);
      const [first, second] = await both;
      expect(first.kind).toBe('timeout');
      expect(second).toMatchObject({ kind: 'timeout', durationMs: 300 });
      hold.release();
      handler = (_req, _body, res) => res.writeHead(204).end();
      // The pool still works after both were cut off (no fake time passes: no deadline can).
      expect((await c.send({ eventId: 'c', body: '{}' })).kind).toBe('response');
    } finally {
      hold.release();
      vi.useRealTimers();
      await c.close();
    }
  });

  it('never sends an attempt whose deadline passed while it waited for a connection', async () => {
    deadlineClock();
    const hold = holdAnswers();
    const arrived: string[] = [];
    const holding = handler;
    handler = (req, body, res) => {
      arrived.push(String(req.headers['webhook-id']));
      holding(req, body, res);
    };
    const pool = new Pool(base, { connections: 1 });
    const attempt = (id: string, timeoutMs: number) =>
      dispatchAttempt(
        pool,
        { method: 'POST', path: '/hook', headers: { 'webhook-id': id }, body: '{}' },
        { timeoutMs, excerptBytes: 64, maxBodyBytes: 1024 },
      );
    try {
      const holder = attempt('holder', 5000);
      const queued = attempt('queued', 200);
      // The holder has the one connection; the queued attempt's deadline passes behind it.
      await hold.arrived(1);
      await vi.advanceTimersByTimeAsync(200);
      expect((await queued).kind).toBe('timeout');
      // Then the connection comes free, long after the queued attempt's deadline: not sent.
      hold.release();
      expect((await holder).kind).toBe('response');
      await pool.close();
      expect(arrived).toEqual(['holder']);
    } finally {
      hold.release();
      vi.useRealTimers();
      if (!pool.closed) await pool.close();
    }
  });

  it('turns a refused connection into a connection error', async () => {
    const probe = createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((ok) => probe.close(() => ok()));
    const c = new HttpClient({
      url: `http://127.0.0.1:${port}/`,
      timeoutMs: 10_000,
      connections: 1,
      allowPrivateNetwork: true,
    });
    const report = await c.send({ eventId: 'e', body: '{}' });
    await c.close();
    expect(report).toMatchObject({ kind: 'connection-error', code: 'ECONNREFUSED' });
  });

  it('refuses, at connect time, a host name that resolves to a private address', async () => {
    handler = (_req, _body, res) => res.writeHead(204).end();
    const before = seen.length;
    const port = new URL(base).port;
    const c = new HttpClient({
      url: `http://localhost:${port}/`,
      timeoutMs: 10_000,
      connections: 1,
      allowPrivateNetwork: false,
    });
    const report = await c.send({ eventId: 'e', body: '{}' });
    await c.close();
    expect(report).toMatchObject({ kind: 'connection-error', code: 'EPRIVATEADDR' });
    expect(seen.length).toBe(before);
  });

  it('clients of one process share one pool per origin, closed with its last client', async () => {
    handler = (_req, _body, res) => res.writeHead(204).end();
    const pools = new OriginPools();
    const a = client('/a', undefined, { pools });
    const b = client('/b', undefined, { pools });
    const guarded = client('/c', undefined, { pools, allowPrivateNetwork: false });
    expect(pools.size).toBe(2);
    const reports = await Promise.all([
      a.send({ eventId: 'evt_pool_a', body: '{}' }),
      b.send({ eventId: 'evt_pool_b', body: '{}' }),
    ]);
    expect(reports.map((r) => r.kind === 'response' && r.status)).toEqual([204, 204]);
    await a.close();
    await a.close(); // twice is once
    expect(pools.size).toBe(2);
    expect((await b.send({ eventId: 'evt_pool_b2', body: '{}' })).kind).toBe('response');
    await b.close();
    await guarded.close();
    expect(pools.size).toBe(0);
  });
});
