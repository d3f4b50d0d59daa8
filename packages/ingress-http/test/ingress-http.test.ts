import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type EventProducer, PublishError } from '@hookstream/producer';
import { afterEach, describe, expect, it } from 'vitest';
import { IngressHttp, MAX_EVENT_JSON_DEPTH } from '../src/ingress-http.ts';
import { TokenTable } from '../src/token-table.ts';

const TOKEN = 'token-aaaaaaaaaaaaaaaa';
const OTHER = 'token-bbbbbbbbbbbbbbbb';

// Routes that refuse before publishing need no producer; one that is reached fails the test.
const noProducer = {
  prepare: () => {
    throw new Error('the producer was reached');
  },
} as unknown as EventProducer;

describe('IngressHttp', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((ok) => (server ? server.close(() => ok()) : ok())));

  async function serve(http: IngressHttp): Promise<string> {
    server = createServer(http.handle);
    await new Promise<void>((ok) => server?.listen(0, '127.0.0.1', ok));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('runs one readiness probe for many concurrent /readyz and reuses its answer', async () => {
    let probes = 0;
    const gate = Promise.withResolvers<void>();
    const http = new IngressHttp({
      producer: noProducer,
      tokens: null,
      maxBodyBytes: 1024,
      retryAfterS: 1,
      readyTtlMs: 60_000,
      checkReady: async () => {
        probes++;
        await gate.promise;
        return { kafka: true, registry: true };
      },
    });
    const url = await serve(http);
    const answers = Array.from({ length: 20 }, () => fetch(`${url}/readyz`));
    gate.resolve();
    for (const a of await Promise.all(answers)) expect(a.status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(probes).toBe(1);
  });

  it('answers 429 with Retry-After beyond a token rate, per token, before reading the body', async () => {
    const http = new IngressHttp({
      producer: noProducer,
      tokens: TokenTable.parse([TOKEN, OTHER], new Set(['key.revoked'])),
      maxBodyBytes: 1024,
      retryAfterS: 1,
      // A clock that stands still: the three requests over real HTTP fall in one refill however
      // slowly a busy machine sends them (with a real clock, a second between them refilled one).
      rateLimit: { perSecond: 1, burst: 2, now: () => 0 },
      checkReady: async () => ({}),
    });
    const url = await serve(http);
    const send = (token: string) =>
      fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' },
        body: 'x',
      });
    // 415: allowed through the limiter, refused later (no producer needed).
    expect((await send(TOKEN)).status).toBe(415);
    expect((await send(TOKEN)).status).toBe(415);
    const limited = await send(TOKEN);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '1']);
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect((await send(OTHER)).status).toBe(415);
  });

  it.each([
    ['an all-types token', null],
    ['demo mode', 'demo'],
  ])(
    'refuses the types hookstream emits with 403 reserved_type for %s, before the producer',
    async (_what, mode) => {
      const http = new IngressHttp({
        producer: noProducer,
        tokens: mode === 'demo' ? null : TokenTable.parse([TOKEN], new Set(['key.revoked'])),
        maxBodyBytes: 4096,
        retryAfterS: 1,
        checkReady: async () => ({}),
      });
      const url = await serve(http);
      const post = (path: string, body: unknown) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const forged = { type: 'subscriber.disabled', data: { subscriber: 'billing' } };
      const one = await post('/v1/events', forged);
      expect(one.status).toBe(403);
      expect(await one.json()).toMatchObject({ error: { code: 'reserved_type' } });
      const batch = await post('/v1/events/batch', { events: [{ ...forged, type: 'subscriber.enabled' }] });
      expect(batch.status).toBe(403);
      expect(await batch.json()).toMatchObject({
        error: { code: 'invalid_batch', details: [{ index: 0, status: 403, code: 'reserved_type' }] },
      });
    },
  );

  it('refuses a tenant-bound token naming another tenant with 403 tenant_forbidden, before the producer', async () => {
    const http = new IngressHttp({
      producer: noProducer,
      tokens: TokenTable.parse([`${TOKEN}@acme`], new Set(['key.revoked'])),
      maxBodyBytes: 4096,
      retryAfterS: 1,
      checkReady: async () => ({}),
    });
    const url = await serve(http);
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const event = { type: 'key.revoked', data: { tenant_id: 't', key_id: 'k' }, tenant: 'globex' };
    const one = await post('/v1/events', event);
    expect(one.status).toBe(403);
    expect(await one.json()).toMatchObject({ error: { code: 'tenant_forbidden' } });
    const batch = await post('/v1/events/batch', { events: [event] });
    expect(batch.status).toBe(403);
    expect(await batch.json()).toMatchObject({
      error: { code: 'invalid_batch', details: [{ index: 0, status: 403, code: 'tenant_forbidden' }] },
    });
  });

  it('does not serve /metrics on the publishing port', async () => {
    const http = new IngressHttp({
      producer: noProducer,
      tokens: null,
      maxBodyBytes: 1024,
      retryAfterS: 1,
      checkReady: async () => ({}),
    });
    const url = await serve(http);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });

  it('refuses a malformed batch with the schema message, before the producer is reached', async () => {
    const http = new IngressHttp({
      producer: noProducer,
      tokens: null,
      maxBodyBytes: 1024 * 1024,
      retryAfterS: 1,
      checkReady: async () => ({}),
    });
    const url = await serve(http);
    const post = async (body: unknown) => {
      const res = await fetch(`${url}/v1/events/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return [res.status, ((await res.json()) as { error: { code: string; message: string } }).error];
    };
    const event = { type: 'key.revoked', data: {} };
    expect(await post({ events: [] })).toEqual([
      400,
      { code: 'invalid_request', message: expect.stringMatching(/^invalid batch: events: /) },
    ]);
    expect(await post({ events: Array.from({ length: 501 }, () => event) })).toEqual([
      400,
      { code: 'invalid_request', message: expect.stringMatching(/^invalid batch: events: /) },
    ]);
    expect(await post({ events: 'x' })).toEqual([
      400,
      { code: 'invalid_request', message: expect.stringMatching(/^invalid batch: events: /) },
    ]);
    expect(await post({ events: [event], extra: 1 })).toEqual([
      400,
      { code: 'invalid_request', message: expect.stringMatching(/^invalid batch: /) },
    ]);
    expect(await post([event])).toEqual([
      400,
      { code: 'invalid_request', message: expect.stringMatching(/^invalid batch: \(root\): /) },
    ]);
  });

  it('refuses a body nested past MAX_EVENT_JSON_DEPTH with 400 body_too_deep, before the producer', async () => {
    // The producer answers what it gets as invalid data: reaching it means the body was parsed.
    const seen: unknown[] = [];
    const producer = {
      prepare: (body: unknown) => {
        seen.push(body);
        throw new PublishError('INVALID_DATA', 'not this shape');
      },
    } as unknown as EventProducer;
    const http = new IngressHttp({
      producer,
      tokens: null,
      maxBodyBytes: 1024 * 1024,
      retryAfterS: 1,
      checkReady: async () => ({}),
    });
    const url = await serve(http);
    // The envelope is one level, so data nested depth - 1 deep makes a body `depth` deep.
    const event = (depth: number) =>
      `{"type":"key.revoked","data":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth)}`;
    const post = async (path: string, body: string) => {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return [res.status, ((await res.json()) as { error: { code: string } }).error.code];
    };
    expect(await post('/v1/events', event(100_000))).toEqual([400, 'body_too_deep']);
    expect(await post('/v1/events', event(MAX_EVENT_JSON_DEPTH + 1))).toEqual([400, 'body_too_deep']);
    expect(await post('/v1/events/batch', `{"events":[${event(MAX_EVENT_JSON_DEPTH - 1)}]}`)).toEqual([
      400,
      'body_too_deep',
    ]);
    expect(seen).toEqual([]);
    expect(await post('/v1/events', event(MAX_EVENT_JSON_DEPTH))).toEqual([400, 'invalid_data']);
    expect(seen).toHaveLength(1);
  });

  it('answers errors as JSON with their headers (401: WWW-Authenticate)', async () => {
    const http = new IngressHttp({
      producer: noProducer,
      tokens: TokenTable.parse([TOKEN], new Set(['key.revoked'])),
      maxBodyBytes: 1024,
      retryAfterS: 1,
      checkReady: async () => ({}),
    });
    const url = await serve(http);
    const res = await fetch(`${url}/v1/events`, { method: 'POST', body: '{}' });
    const text = await res.text();
    expect([res.status, res.headers.get('www-authenticate'), res.headers.get('content-type')]).toEqual([
      401,
      'Bearer',
      'application/json',
    ]);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'unauthorized' } });
  });
});
