import type { AuditRecord, SubscriberRecord } from '@hookstream/contracts';
import { type ManagementPorts, ManagementService } from '@hookstream/management';
import { foldRegistry, RevisionMismatchError } from '@hookstream/subscribers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiServer,
  ApiTokens,
  answerSchema,
  MAX_BODY_DEPTH,
  MAX_BODY_VALUES,
  managementRoutes,
  Router,
} from '../src/index.ts';

const OPERATOR_TOKEN = 'operator-token-0123456789';
const ACME_TOKEN = 'acme-token-0123456789abc';

/** Only the catalog and the audit trail are used here; every other port fails loudly. */
function service(): { service: ManagementService; audit: AuditRecord[] } {
  const records = new Map<string, SubscriberRecord>();
  // Revisions as the catalog topic gives them: the offset of the write in effect.
  const revisions = new Map<string, string>();
  let offset = 0;
  const audit: AuditRecord[] = [];
  const unused = async (): Promise<never> => {
    throw new Error('not used by these tests');
  };
  const ports: ManagementPorts = {
    eventsTopic: 'events',
    secretsKey: undefined,
    catalog: {
      read: async () => ({
        ...foldRegistry([]),
        subscribers: new Map(records),
        revisions: new Map(revisions),
      }),
      write: async (rs) => {
        for (const r of rs) {
          records.set(r.definition.name, r);
          revisions.set(r.definition.name, String(offset++));
        }
      },
      writeIfRevision: async (record, expected) => {
        const name = record.definition.name;
        const current = revisions.get(name);
        if ((expected === 'absent' ? undefined : expected) !== current)
          throw new RevisionMismatchError(name, expected, current ?? null);
        records.set(name, record);
        const revision = String(offset++);
        revisions.set(name, revision);
        return revision;
      },
    },
    commitStart: async () => undefined,
    deleteSubscriber: unused,
    rewind: unused,
    openPublisher: unused,
    overviews: async () => ({ rows: [], headroomError: null }),
    instanceStatuses: async () => [],
    readDeadLetters: unused,
    replayDeadLetters: unused,
    ledger: unused,
    eventTypes: () => [],
    audit: { write: async (rs) => void audit.push(...rs) },
    readAudit: async () => ({ records: audit }),
    now: () => new Date(),
    readRecordAt: unused,
    sendToRetryTier: unused,
  };
  return { service: new ManagementService(ports), audit };
}

let server: ApiServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
});

async function start(options: { rate?: number; bodyLimit?: number; now?: () => number } = {}) {
  server = new ApiServer({
    service: service().service,
    tokens: ApiTokens.parse([`${OPERATOR_TOKEN}=*`, `${ACME_TOKEN}@acme`]),
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: options.rate ?? 1000,
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const base = await server.start();
  return async (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const { token = OPERATOR_TOKEN, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    if (rest.body !== undefined && !headers.has('content-type'))
      headers.set('content-type', 'application/json');
    const res = await fetch(`${base}${path}`, { ...rest, headers });
    await conforms(rest.method ?? 'GET', path, res.clone());
    return res;
  };
}

const router = new Router(managementRoutes(service().service, () => ({})));

/** Every answer of a route meets the schema the document gives for its status. */
async function conforms(method: string, path: string, res: Response): Promise<void> {
  const body: unknown = await res.json();
  const match = router.match(method, new URL(path, 'http://x').pathname);
  if (match.kind !== 'route') return;
  const schema = answerSchema(match.route, res.status);
  expect(schema, `${method} ${path} ${res.status} is in the document`).toBeDefined();
  const check = schema?.safeParse(body);
  expect(check?.success, `${method} ${path} ${res.status}: ${JSON.stringify(check?.error?.issues)}`).toBe(
    true,
  );
}

async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe('tokens', () => {
  it('reads token=* as the operator and token@tenant as that tenant, and refuses other forms', () => {
    const tokens = ApiTokens.parse([`${OPERATOR_TOKEN}=*`, `# a comment`, `${ACME_TOKEN}@acme`]);
    expect(tokens.authorize(`Bearer ${OPERATOR_TOKEN}`)?.scope).toEqual({ kind: 'operator' });
    expect(tokens.authorize(`Bearer ${ACME_TOKEN}`)?.scope).toEqual({ kind: 'tenant', tenant: 'acme' });
    expect(tokens.authorize(`Bearer ${ACME_TOKEN}`)?.id).toMatch(/^tok_[0-9a-f]{16}$/);
    expect(tokens.authorize('Bearer nope-nope-nope-nope')).toBeNull();
    expect(() => ApiTokens.parse([OPERATOR_TOKEN])).toThrow(/entry 1: write token=\*/);
    expect(() => ApiTokens.parse([`${OPERATOR_TOKEN}=order.created`])).toThrow(/entry 1/);
    expect(() => ApiTokens.parse(['short=*'])).toThrow(/at least 16/);
    expect(() => ApiTokens.parse([])).toThrow(/no API token/);
  });
});

describe('the server', () => {
  it('answers 401 without a token or with an unknown one, in the ingress error shape', async () => {
    const api = await start();
    for (const token of [null, 'unknown-token-0123456789']) {
      const res = await api('/v1/subscribers', { token });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    }
  });

  it('routes: 404 for no route, 405 for another method, 400 for a name the contracts refuse', async () => {
    const api = await start();
    expect(await errorCode(await api('/v1/nothing'))).toBe('not_found');
    const wrongMethod = await api('/v1/subscribers', { method: 'DELETE' });
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'GET']);
    const bad = await api('/v1/subscribers/UPPER');
    expect(bad.status).toBe(400);
    expect(await errorCode(bad)).toBe('invalid_request');
    expect((await api(`/v1/subscribers?limit=1001`)).status).toBe(400);
    expect((await api(`/v1/subscribers?limit=5&limit=6`)).status).toBe(400);
    // A cursor is a name: any name is one (the page after it), anything else is refused.
    expect((await api(`/v1/subscribers?cursor=any-name`)).status).toBe(200);
    expect(await errorCode(await api(`/v1/subscribers?cursor=Not%20a%20name`))).toBe('invalid_request');
    // If-Match is `*` or quoted ETags; anything else is a bad request, not a stale one.
    const badTag = await api('/v1/subscribers/s9', { method: 'DELETE', headers: { 'if-match': 'W/"1"' } });
    expect([badTag.status, await errorCode(badTag)]).toEqual([400, 'invalid_request']);
  });

  it('bounds bodies: 413 past the limit, 415 for another type, 400 for bad JSON, 422 for a bad definition', async () => {
    const api = await start({ bodyLimit: 1000 });
    const put = (body: string, type = 'application/json') =>
      api('/v1/subscribers/s1', { method: 'PUT', body, headers: { 'content-type': type } });
    expect((await put(JSON.stringify({ url: `https://x.example.com/${'a'.repeat(2000)}` }))).status).toBe(
      413,
    );
    expect((await put('{}', 'text/plain')).status).toBe(415);
    expect(await errorCode(await put('{'))).toBe('invalid_json');
    const invalid = await put(JSON.stringify({ url: 'ftp://x' }));
    expect(invalid.status).toBe(422);
    expect(
      ((await invalid.json()) as { error: { details: { path: string }[] } }).error.details[0]?.path,
    ).toBe('url');
  });

  it('refuses a filter nested 100,000 deep with 400 body_too_deep before any parse, and writes nothing', async () => {
    const api = await start();
    const definition = (nots: number) =>
      `{"url":"https://x.example.com/","filter":${'{"not":'.repeat(nots)}{"exact":{"type":"a"}}${'}'.repeat(nots)}}`;
    const deep = await api('/v1/subscribers/s-deep', { method: 'PUT', body: definition(100_000) });
    expect([deep.status, await errorCode(deep)]).toEqual([400, 'body_too_deep']);
    // Within the bound the schemas see it, and refuse the filter as theirs (MAX_FILTER_DEPTH).
    const nested = await api('/v1/subscribers/s-deep', {
      method: 'PUT',
      body: definition(MAX_BODY_DEPTH - 4),
    });
    expect([nested.status, await errorCode(nested)]).toEqual([422, 'invalid_definition']);
    const many = JSON.stringify({
      url: 'https://x.example.com/',
      eventTypes: Array.from({ length: MAX_BODY_VALUES }, (_, i) => `t.e${i}`),
    });
    const complex = await api('/v1/subscribers/s-deep', { method: 'PUT', body: many });
    expect([complex.status, await errorCode(complex)]).toEqual([400, 'body_too_complex']);
    expect((await api('/v1/subscribers/s-deep')).status).toBe(404);
  });

  it('creates with PUT (201), then 200 with the same ETag; GET gives it; a stale If-Match is 412', async () => {
    const api = await start();
    const body = JSON.stringify({ url: 'https://x.example.com/hook' });
    const created = await api('/v1/subscribers/s1', { method: 'PUT', body });
    expect(created.status).toBe(201);
    const again = await api('/v1/subscribers/s1', { method: 'PUT', body });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { action: string }).action).toBe('unchanged');
    const etag = created.headers.get('etag');
    expect(etag).toMatch(/^"\d+"$/);
    expect(again.headers.get('etag')).toBe(etag);
    const got = await api('/v1/subscribers/s1');
    expect(got.headers.get('etag')).toBe(etag);
    const stale = await api('/v1/subscribers/s1', { method: 'PUT', body, headers: { 'if-match': '"99"' } });
    expect(stale.status).toBe(412);
    expect(await errorCode(stale)).toBe('precondition_failed');
    // A tenant does not see the operator's subscriber.
    expect((await api('/v1/subscribers/s1', { token: ACME_TOKEN })).status).toBe(404);
  });

  it('limits each token to its rate, then answers 429 with Retry-After', async () => {
    // A clock that stands still: six requests over real HTTP fall in one refill however slowly a
    // busy machine sends them (with a real clock, a third of a second between them refilled one).
    const api = await start({ rate: 3, now: () => 0 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api('/v1/subscribers')).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    const limited = await api('/v1/subscribers');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another token has its own bucket.
    expect((await api('/v1/subscribers', { token: ACME_TOKEN })).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('is served without a token, as OpenAPI 3.1 with every route and its schemas from zod', async () => {
    const api = await start();
    const res = await api('/v1/openapi.json', { token: null });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: { properties: object } }> }; responses: object }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /v1/openapi.json',
        'GET /v1/subscribers',
        'GET /v1/subscribers/{name}',
        'PUT /v1/subscribers/{name}',
        'DELETE /v1/subscribers/{name}',
        'POST /v1/subscribers/{name}/pause',
        'POST /v1/subscribers/{name}/resume',
        'POST /v1/subscribers/{name}/rewind',
        'POST /v1/subscribers/{name}/secret/rotate',
        'GET /v1/subscribers/{name}/dead-letters',
        'GET /v1/subscribers/{name}/secret',
        'POST /v1/subscribers/{name}/dead-letters/replay',
        'GET /v1/jobs/{id}',
        'GET /v1/events/{id}/ledger',
        'GET /v1/event-types',
        'GET /v1/audit',
        'GET /v1/subscribers/{name}/events',
        'POST /v1/subscribers/{name}/ack',
        'POST /v1/subscribers/{name}/nack',
        'GET /v1/messages',
        'GET /v1/messages/{eventId}',
        'GET /v1/messages/{eventId}/payload',
        'POST /v1/messages/{eventId}/subscribers/{name}/resend',
        'POST /v1/subscribers/{name}/send-example',
      ].sort(),
    );
    const put = doc.paths['/v1/subscribers/{name}']?.put;
    expect(Object.keys(put?.requestBody?.content['application/json']?.schema.properties ?? {})).toEqual(
      expect.arrayContaining(['url', 'eventTypes', 'allowPrivateNetwork', 'tenant', 'secret']),
    );
    expect(Object.keys(put?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '201', '401', '412', '413', '415', '429']),
    );
  });
});
