import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthSignal } from '../src/breaker-policy.ts';
import { HttpClient } from '../src/http-client.ts';
import { fetchClientCredentialsToken } from '../src/oauth2-token.ts';
import { classify } from '../src/policy.ts';
import { TokenCache } from '../src/token-cache.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** One local server for the token endpoint (/token) and the destination (/hook). */
describe('OAuth2 client credentials against a real local server', () => {
  let server: Server;
  let base: string;
  let pool: Pool;
  const tokenRequests: {
    authorization: string | undefined;
    contentType: string | undefined;
    body: string;
  }[] = [];
  const hookAuth: (string | undefined)[] = [];
  let tokenAnswer: Handler = (_req, _body, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        access_token: `tok-${tokenRequests.length}`,
        token_type: 'Bearer',
        expires_in: 3600,
      }),
    );
  let hookAnswer: Handler = (_req, _body, res) => res.writeHead(204).end();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        if (req.url === '/token') {
          tokenRequests.push({
            authorization: req.headers.authorization,
            contentType: req.headers['content-type'],
            body,
          });
          tokenAnswer(req, body, res);
        } else {
          hookAuth.push(req.headers.authorization);
          hookAnswer(req, body, res);
        }
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    pool = new Pool(base);
  });
  afterAll(async () => {
    await pool.close();
    server.closeAllConnections();
    server.close();
  });

  const request = (extra: Partial<Parameters<typeof fetchClientCredentialsToken>[1]> = {}) => ({
    tokenUrl: new URL(`${base}/token`),
    clientId: 'hook stream',
    clientSecret: 's3cr:t',
    scope: 'events:write',
    audience: 'https://api.example',
    // Generous where answers must come: a loaded machine must not turn them into timeouts.
    timeoutMs: 10_000,
    ...extra,
  });

  it('posts a form-encoded client-credentials grant with HTTP Basic client authentication', async () => {
    tokenRequests.length = 0;
    const grant = await fetchClientCredentialsToken(pool, request());
    expect(grant).toEqual({ accessToken: 'tok-1', expiresInS: 3600 });
    const [seen] = tokenRequests;
    expect(seen?.contentType).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(seen?.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'events:write',
      audience: 'https://api.example',
    });
    // RFC 6749 2.3.1: id and secret form-encoded before Base64.
    expect(Buffer.from(seen?.authorization?.replace(/^Basic /, '') ?? '', 'base64').toString()).toBe(
      'hook+stream:s3cr%3At',
    );
  });

  it('names each failure with its own code, never with the secret', async () => {
    const cases: [Handler, string][] = [
      [(_q, _b, res) => res.writeHead(503).end(), 'OAUTH2_TOKEN_SERVER_ERROR'],
      [
        (_q, _b, res) =>
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}'),
        'OAUTH2_TOKEN_REFUSED',
      ],
      [(_q, _b, res) => res.writeHead(200).end('<html>'), 'OAUTH2_TOKEN_BAD_ANSWER'],
      [
        (_q, _b, res) => res.writeHead(200).end('{"access_token":"x","token_type":"mac"}'),
        'OAUTH2_TOKEN_BAD_ANSWER',
      ],
      [() => {}, 'OAUTH2_TOKEN_TIMEOUT'],
    ];
    for (const [handler, code] of cases) {
      tokenAnswer = handler;
      // A short deadline only where the endpoint never answers: with 300 ms for all, a refusal
      // that came late on a busy machine was reported as a timeout.
      const timeoutMs = code === 'OAUTH2_TOKEN_TIMEOUT' ? 300 : 10_000;
      const err = await fetchClientCredentialsToken(pool, request({ timeoutMs })).catch((e: unknown) => e);
      expect(err, String(err)).toMatchObject({ code });
      expect(String((err as Error).message)).not.toContain('s3cr');
    }
    const closed = new Pool('http://127.0.0.1:1');
    await expect(
      fetchClientCredentialsToken(closed, request({ tokenUrl: new URL('http://127.0.0.1:1/token') })),
    ).rejects.toMatchObject({
      code: 'OAUTH2_TOKEN_UNREACHABLE',
    });
    await closed.close();
  });

  it('sends the bearer token, reuses it, and after a 401 renews it once and sends the attempt again', async () => {
    tokenRequests.length = 0;
    hookAuth.length = 0;
    tokenAnswer = (_req, _body, res) =>
      res
        .writeHead(200)
        .end(JSON.stringify({ access_token: `tok-${tokenRequests.length}`, expires_in: 3600 }));
    const bearer = new TokenCache({ fetch: () => fetchClientCredentialsToken(pool, request()) });
    const client = new HttpClient({
      url: `${base}/hook`,
      timeoutMs: 10_000,
      connections: 4,
      allowPrivateNetwork: true,
      bearer,
    });
    try {
      const first = await Promise.all([1, 2, 3].map((i) => client.send({ eventId: `e${i}`, body: '{}' })));
      expect(first.map((r) => r.kind === 'response' && r.status)).toEqual([204, 204, 204]);
      expect(tokenRequests).toHaveLength(1);
      expect(hookAuth).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-1']);
      // The destination stops taking tok-1: one renewal, the attempt goes again and succeeds.
      hookAnswer = (req, _b, res) =>
        res.writeHead(req.headers.authorization === 'Bearer tok-1' ? 401 : 204).end();
      const renewed = await client.send({ eventId: 'e4', body: '{}' });
      expect(renewed.kind === 'response' && renewed.status).toBe(204);
      expect(tokenRequests).toHaveLength(2);
      expect(hookAuth.slice(3)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
      // A destination that refuses every token: the second 401 is the attempt's answer.
      hookAnswer = (_req, _b, res) => res.writeHead(401).end();
      const refused = await client.send({ eventId: 'e5', body: '{}' });
      expect(refused.kind === 'response' && refused.status).toBe(401);
      expect(tokenRequests).toHaveLength(3);
      expect(hookAuth).toHaveLength(7);
      // The token endpoint down: the attempt is a token-error, the destination never asked.
      tokenAnswer = (_req, _b, res) => res.writeHead(500).end();
      hookAnswer = (_req, _b, res) => res.writeHead(401).end();
      const down = await client.send({ eventId: 'e6', body: '{}' });
      expect(down).toMatchObject({ kind: 'connection-error', code: 'OAUTH2_TOKEN_SERVER_ERROR' });
      expect(hookAuth).toHaveLength(8);
      const c = classify(down, Date.now());
      expect([c.outcome, c.reason, healthSignal(c)]).toEqual(['retryable', 'token-error', 'neutral']);
    } finally {
      hookAnswer = (_req, _b, res) => res.writeHead(204).end();
      await client.close();
    }
  });
  it('keeps the bearer token out of the excerpt of an endpoint that echoes it', async () => {
    tokenAnswer = (_req, _body, res) =>
      res.writeHead(200).end(JSON.stringify({ access_token: 'tok-echoed-0123456789', expires_in: 3600 }));
    hookAnswer = (req, _b, res) => res.writeHead(400).end(`refused ${req.headers.authorization}`);
    const bearer = new TokenCache({ fetch: () => fetchClientCredentialsToken(pool, request()) });
    const client = new HttpClient({
      url: `${base}/hook`,
      timeoutMs: 10_000,
      connections: 1,
      allowPrivateNetwork: true,
      bearer,
    });
    try {
      const echoed = await client.send({ eventId: 'e-echo', body: '{}' });
      expect(echoed).toMatchObject({ kind: 'response', status: 400, excerpt: 'refused [redacted]' });
    } finally {
      hookAnswer = (_req, _b, res) => res.writeHead(204).end();
      await client.close();
    }
  });
});
