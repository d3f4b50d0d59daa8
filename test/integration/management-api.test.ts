import { randomBytes } from 'node:crypto';
import {
  ApiServer,
  ApiTokens,
  answerSchema,
  DEFAULT_BODY_LIMIT,
  managementRoutes,
  Router,
} from '@hookstream/api';
import { createKafka } from '@hookstream/kafka';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import {
  LiveCatalog,
  parseSecretsKey,
  readAuditTrail,
  recordDigest,
  SubscriberCatalog,
  withHeaderValue,
} from '@hookstream/subscribers';
import { createLogger, logFn } from '@hookstream/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventFactory } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

// The management API in this process against the real stack: its catalog, audit trail and
// dead-letter tools. Every name (subscribers, tenants, tokens) is this run's own.
const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'test-management-api', quiet: true });
const catalog = new SubscriberCatalog(kafka);
const token = () => randomBytes(18).toString('base64url');
const operatorToken = token();
const acme = uniqueName('acme');
const globex = uniqueName('globex');
const acmeToken = token();
const globexToken = token();
const quoted = uniqueName('quoted');
const quotedToken = token();
const tokens = ApiTokens.parse([
  `${operatorToken}=*`,
  `${acmeToken}@${acme}`,
  `${globexToken}@${globex}`,
  `${quotedToken}@${quoted}`,
]);
const secretsKey = parseSecretsKey(randomBytes(32).toString('base64'), 'the test key');
/** The API's catalog, as `hookstream api` keeps it: followed, started before the server. */
const live = new LiveCatalog(kafka, () => undefined);
const service = new ManagementService(
  kafkaPorts({
    kafka,
    catalog: live,
    eventsTopic: uniqueName('mapi-events'),
    secretsKey,
    tenantQuotas: { maxSubscribers: 100, byTenant: { [quoted]: 1 } },
    openPublisher: async () => {
      throw new Error('no subscriber here is disabled: no notice is due');
    },
  }),
);
const servers: ApiServer[] = [];
/** The servers' `request` lines as `hookstream api` logs them: through the redacting logger, parsed back. */
const requestLog: Record<string, unknown>[] = [];
const apiLog = logFn(
  createLogger({
    name: 'test-management-api',
    destination: {
      write: (line: string) => {
        const fields = JSON.parse(line) as Record<string, unknown>;
        if (fields.msg === 'request') requestLog.push(fields);
      },
    },
  }),
);
const router = new Router(managementRoutes(service, () => ({})));
/** Every subscriber this file PUT, deleted at its end. */
const made = new Set<string>();
let base = '';

async function serve(rate: number): Promise<string> {
  const server = new ApiServer({
    service,
    tokens,
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: rate,
    log: apiLog,
  });
  servers.push(server);
  return server.start();
}

beforeAll(async () => {
  await live.start();
  base = await serve(1000);
});

afterAll(async () => {
  // The shared catalog keeps no subscriber of this file (their names stay bound: they are unique).
  for (const name of (await catalog.read()).subscribers.keys())
    if (name.startsWith('mapi-') && made.has(name))
      await service.deleteSubscriber({ scope: { kind: 'operator' }, id: 'test' }, name, { purge: false });
  for (const s of servers) await s.close();
  await live.stop();
});

interface Answer<T = Record<string, unknown>> {
  readonly status: number;
  readonly etag: string | null;
  readonly body: T;
}

async function call<T = Record<string, unknown>>(
  as: string,
  method: string,
  path: string,
  /** `text`: a body sent as it is, for one JSON.stringify could not make (too deep). */
  options: { body?: unknown; text?: string; ifMatch?: string; at?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { authorization: `Bearer ${as}` };
  const text = options.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (text !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  const name = /^\/v1\/subscribers\/([^/?]+)/.exec(path)?.[1];
  if (method === 'PUT' && name !== undefined) made.add(name);
  const res = await fetch(`${options.at ?? base}${path}`, {
    method,
    headers,
    ...(text === undefined ? {} : { body: text }),
  });
  const body: unknown = await res.json();
  // Every answer meets the schema the document gives for its route and status.
  const match = router.match(method, new URL(path, 'http://x').pathname);
  if (match.kind !== 'route') throw new Error(`no route ${method} ${path}`);
  const check = answerSchema(match.route, res.status)?.safeParse(body);
  expect(
    check?.success,
    `${method} ${path} ${res.status}: ${JSON.stringify(check?.error?.issues ?? 'undocumented')}`,
  ).toBe(true);
  return { status: res.status, etag: res.headers.get('etag'), body: body as T };
}

const code = (a: Answer) => (a.body as { error?: { code?: string } }).error?.code;

async function liveRecord(name: string) {
  return (await catalog.read()).subscribers.get(name);
}

describe('the management API against the stack', () => {
  it('creates by PUT (201, ETag), reads it with the same ETag, and a second PUT changes nothing (200)', async () => {
    const name = uniqueName('mapi-op');
    const definition = { url: 'https://mapi.example.com/hook', eventTypes: ['order.created'] };
    const created = await call(operatorToken, 'PUT', `/v1/subscribers/${name}`, { body: definition });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.etag).toMatch(/^"\d+"$/);
    const read = await call(operatorToken, 'GET', `/v1/subscribers/${name}`);
    expect([read.status, read.etag]).toEqual([200, created.etag]);
    const again = await call(operatorToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { ...definition, name },
    });
    expect([again.status, again.etag, again.body.action]).toEqual([200, created.etag, 'unchanged']);
    // The ETag is the catalog revision of the record in effect (the offset of its write).
    expect(created.etag).toBe(`"${(await catalog.read()).revisions.get(name)}"`);
  });

  it("keeps tenants apart: another tenant's subscriber is 404 to list, read, pause, delete and replay, and stays untouched", async () => {
    const name = uniqueName('mapi-globex');
    const made = await call(globexToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://globex.example.com/hook', secret: { managed: true } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((made.body.subscriber as { definition: { tenant: string } }).definition.tenant).toBe(globex);
    const before = await liveRecord(name);
    expect(before).toBeDefined();

    const list = await call<{ items: { name: string }[] }>(acmeToken, 'GET', '/v1/subscribers?limit=1000');
    expect(list.status).toBe(200);
    expect(list.body.items.map((i) => i.name)).not.toContain(name);
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/subscribers/${name}`],
      ['POST', `/v1/subscribers/${name}/pause`, { reason: 'not yours' }],
      ['POST', `/v1/subscribers/${name}/secret/rotate`, {}],
      ['GET', `/v1/subscribers/${name}/dead-letters`],
      ['POST', `/v1/subscribers/${name}/dead-letters/replay`, { dryRun: false }],
      ['DELETE', `/v1/subscribers/${name}`],
      ['DELETE', `/v1/subscribers/${name}?purge=true`],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await call(acmeToken, method, path, body === undefined ? {} : { body });
      expect([method, path, answer.status, code(answer)]).toEqual([method, path, 404, 'not_found']);
    }
    expect(recordDigest(await liveRecord(name))).toBe(recordDigest(before));
    // Its own tenant sees it in its list.
    const own = await call<{ items: { name: string }[] }>(globexToken, 'GET', '/v1/subscribers');
    expect(own.body.items.map((i) => i.name)).toEqual([name]);
  });

  it('refuses a tenant creating for another tenant, aiming at a private address, or taking a name another tenant holds', async () => {
    const name = uniqueName('mapi-acme');
    const other = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://acme.example.com/hook', tenant: globex },
    });
    expect([other.status, code(other)]).toEqual([403, 'forbidden_tenant']);
    const privateAddress = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'http://10.0.0.7/hook', allowPrivateNetwork: true, allowInsecureHttp: true },
    });
    expect([privateAddress.status, code(privateAddress)]).toEqual([422, 'forbidden_field']);
    expect(await liveRecord(name)).toBeUndefined();

    const held = uniqueName('mapi-held');
    expect(
      (await call(globexToken, 'PUT', `/v1/subscribers/${held}`, { body: { url: 'https://g.example.com/' } }))
        .status,
    ).toBe(201);
    const taken = await call(acmeToken, 'PUT', `/v1/subscribers/${held}`, {
      body: { url: 'https://a.example.com/' },
    });
    expect([taken.status, code(taken)]).toEqual([409, 'name_unavailable']);
    expect((await liveRecord(held))?.definition.tenant).toBe(globex);
  });

  it("names that differ only by '.' and '_' collide: the twin of a held name is 409 name_unavailable for every caller, and a pair held from before is listed for the operator", async () => {
    const stem = uniqueName('mapi-twin');
    const held = `${stem}_y`;
    const twin = `${stem}.y`;
    expect(
      (await call(globexToken, 'PUT', `/v1/subscribers/${held}`, { body: { url: 'https://g.example.com/' } }))
        .status,
    ).toBe(201);
    for (const as of [acmeToken, globexToken, operatorToken]) {
      const taken = await call(as, 'PUT', `/v1/subscribers/${twin}`, {
        body: { url: 'https://a.example.com/' },
      });
      expect([taken.status, code(taken)]).toEqual([409, 'name_unavailable']);
    }
    expect(await liveRecord(twin)).toBeUndefined();

    // A raw catalog writer (or a catalog from before the rule) can still hold both.
    const record = await liveRecord(held);
    if (record === undefined) throw new Error(`${held} was not written`);
    made.add(twin);
    await catalog.write([{ ...record, definition: { ...record.definition, name: twin } }]);
    await waitFor('the twin in the catalog', async () => liveRecord(twin));
    const listed = async (as: string) =>
      (await call<{ nameCollisions: string[][] }>(as, 'GET', '/v1/subscribers?limit=1')).body.nameCollisions;
    const pair = await waitFor("the pair in the operator's list", async () =>
      (await listed(operatorToken)).find((g) => g.includes(held)),
    );
    expect(pair).toEqual([twin, held].sort());
    expect(await listed(globexToken)).toEqual([]);
    // Each of the pair stays manageable, so the operator can delete one.
    const update = await call(globexToken, 'PUT', `/v1/subscribers/${held}`, {
      body: { url: 'https://g2.example.com/' },
    });
    expect(update.status).toBe(200);
  });

  it('a filter nested 100,000 deep is refused with 400 body_too_deep before any parse, and nothing is written', async () => {
    // Issue 41, item 6: this body, inside the 1 MiB limit, reached zod's recursive filter schema
    // and answered 500 (RangeError: Maximum call stack size exceeded).
    const name = uniqueName('mapi-deep');
    const nots = 100_000;
    const text = `{"url":"https://deep.example.com/hook","filter":${'{"not":'.repeat(nots)}{"exact":{"type":"a"}}${'}'.repeat(nots)}}`;
    expect(Buffer.byteLength(text)).toBeLessThan(DEFAULT_BODY_LIMIT);
    for (const as of [acmeToken, operatorToken]) {
      const deep = await call(as, 'PUT', `/v1/subscribers/${name}`, { text });
      expect([deep.status, code(deep)]).toEqual([400, 'body_too_deep']);
    }
    expect((await call(operatorToken, 'GET', `/v1/subscribers/${name}`)).status).toBe(404);
    expect(await liveRecord(name)).toBeUndefined();
    expect((await readAuditTrail(kafka, { subscriber: name })).records).toEqual([]);
  });

  it("seals and addresses: a tenant's move to a new origin drops the operator's sealed header and says so; a loopback token URL is 422 at PUT", async () => {
    const name = uniqueName('mapi-seal');
    const headers = { 'X-Key': { managed: true } };
    const made201 = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://s.example.com/hook', headers },
    });
    expect(made201.status).toBe(201);
    // The operator seals the header's value (as `subscribers header set` does).
    const record = await liveRecord(name);
    if (record === undefined) throw new Error(`${name} was not written`);
    await catalog.write([withHeaderValue(record, secretsKey, 'X-Key', 'operator-value', new Date())]);
    await waitFor(
      'the sealed header in the catalog',
      async () => (await liveRecord(name))?.sealedHeaders?.['X-Key'],
    );
    const moved = await call<{ droppedSeals: string[] }>(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://attacker.example.net/hook', headers },
    });
    expect([moved.status, moved.body.droppedSeals]).toEqual([200, ['headers.X-Key']]);
    expect((await liveRecord(name))?.sealedHeaders).toBeUndefined();

    const oauth2 = {
      tokenUrl: 'https://127.0.0.1/token',
      clientId: 'x',
      clientSecret: { managed: true },
    };
    const loopback = await call(acmeToken, 'PUT', `/v1/subscribers/${uniqueName('mapi-tok')}`, {
      body: { url: 'https://t.example.com/hook', oauth2 },
    });
    expect([loopback.status, code(loopback)]).toEqual([422, 'invalid_definition']);
    expect(
      (loopback.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path),
    ).toEqual(['oauth2.tokenUrl']);
  });

  it("a tenant's subscribers stop at its quota: 409 quota_exceeded and nothing written; a delete makes room", async () => {
    const first = uniqueName('mapi-q1');
    const second = uniqueName('mapi-q2');
    const body = { url: 'https://q.example.com/hook' };
    expect((await call(quotedToken, 'PUT', `/v1/subscribers/${first}`, { body })).status).toBe(201);
    const over = await call(quotedToken, 'PUT', `/v1/subscribers/${second}`, { body });
    expect([over.status, code(over)]).toEqual([409, 'quota_exceeded']);
    expect(await liveRecord(second)).toBeUndefined();
    expect((await call(quotedToken, 'DELETE', `/v1/subscribers/${first}`)).status).toBe(200);
    await waitFor('the deleted one out of the catalog', async () =>
      (await liveRecord(first)) === undefined ? true : undefined,
    );
    expect((await call(quotedToken, 'PUT', `/v1/subscribers/${second}`, { body })).status).toBe(201);
  });

  it('answers 412 to a stale If-Match and writes nothing; the current one passes', async () => {
    const name = uniqueName('mapi-etag');
    const first = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://e.example.com/1' },
    });
    const second = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://e.example.com/2' },
      ifMatch: first.etag ?? '',
    });
    expect(second.status).toBe(200);
    const stale = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://e.example.com/3' },
      ifMatch: first.etag ?? '',
    });
    expect([stale.status, code(stale)]).toEqual([412, 'precondition_failed']);
    const staleDelete = await call(acmeToken, 'DELETE', `/v1/subscribers/${name}`, {
      ifMatch: first.etag ?? '',
    });
    expect(staleDelete.status).toBe(412);
    expect((await liveRecord(name))?.definition.url).toBe('https://e.example.com/2');
  });

  it('two writers with the same If-Match: exactly one wins, the other gets 412, and the winner stays in effect', async () => {
    const name = uniqueName('mapi-race');
    const first = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://race.example.com/0' },
    });
    expect(first.status).toBe(201);
    const answers = await Promise.all(
      ['a', 'b'].map((w) =>
        call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
          body: { url: `https://race.example.com/${w}` },
          ifMatch: first.etag ?? '',
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
    const winner = answers.find((a) => a.status === 200);
    if (winner === undefined) throw new Error('no winner');
    const url = (winner.body as { subscriber?: { definition?: { url?: string } } }).subscriber?.definition
      ?.url;
    expect((await liveRecord(name))?.definition.url).toBe(url);
    const read = await call(acmeToken, 'GET', `/v1/subscribers/${name}`);
    expect(read.etag).toBe(winner.etag);
  });

  it('writes an audit record for every change, naming the token id and never the token', async () => {
    const name = uniqueName('mapi-audit');
    const path = `/v1/subscribers/${name}`;
    const steps: [string, string, unknown?][] = [
      ['PUT', path, { url: 'https://audit.example.com/1', secret: { managed: true } }],
      ['PUT', path, { url: 'https://audit.example.com/2', secret: { managed: true } }],
      ['POST', `${path}/pause`, { reason: 'maintenance' }],
      ['POST', `${path}/resume`],
      ['POST', `${path}/secret/rotate`, { graceMs: 0 }],
      ['DELETE', path],
    ];
    for (const [method, p, body] of steps) {
      const answer = await call(acmeToken, method, p, body === undefined ? {} : { body });
      expect([method, p, answer.status], JSON.stringify(answer.body)).toEqual([
        method,
        p,
        method === 'PUT' && answer.status === 201 ? 201 : 200,
      ]);
    }
    const { records } = await readAuditTrail(kafka, { subscriber: name });
    expect(records.map((r) => r.action)).toEqual([
      'subscriber.created',
      'subscriber.updated',
      'subscriber.paused',
      'subscriber.resumed',
      'subscriber.secret_rotated',
      'subscriber.purged',
    ]);
    const tokenId = tokens.authorize(`Bearer ${acmeToken}`)?.id;
    for (const r of records) expect(r.actor).toEqual({ kind: 'token', tokenId, tenant: acme });
    expect(JSON.stringify(records)).not.toContain(acmeToken);
    // The tenant reads its own records over the API; another tenant reads none of them.
    const own = await call<{ items: { subscriber: string }[] }>(
      acmeToken,
      'GET',
      `/v1/audit?subscriber=${name}`,
    );
    expect(own.body.items).toHaveLength(6);
    const others = await call<{ items: unknown[] }>(globexToken, 'GET', `/v1/audit?subscriber=${name}`);
    expect(others.body.items).toEqual([]);
  });

  it("records a secret read in the audit trail and the request log by the caller's token id, never the secret", async () => {
    const name = uniqueName('mapi-secret');
    const path = `/v1/subscribers/${name}/secret`;
    const made = await call(acmeToken, 'PUT', `/v1/subscribers/${name}`, {
      body: { url: 'https://secret.example.com/hook', secret: { managed: true } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const shown = await call<{ current: string }>(acmeToken, 'GET', path);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    const secret = shown.body.current;
    expect(secret).toMatch(/^whsec_/);

    const tokenId = tokens.authorize(`Bearer ${acmeToken}`)?.id;
    const { records } = await readAuditTrail(kafka, { subscriber: name });
    const reads = records.filter((r) => r.action === 'subscriber.secret_read');
    expect(reads.map((r) => [r.subscriber, r.tenant, r.actor])).toEqual([
      [name, acme, { kind: 'token', tokenId, tenant: acme }],
    ]);
    // A read changes nothing: before and after are the record in effect, the chain unbroken.
    const digest = recordDigest(await liveRecord(name));
    expect([reads[0]?.before, reads[0]?.after]).toEqual([digest, digest]);
    const trail = JSON.stringify(records);
    expect(trail).not.toContain(secret);
    expect(trail).not.toContain(acmeToken);
    // The tenant reads it over the API too.
    const own = await call<{ items: { action: string }[] }>(acmeToken, 'GET', `/v1/audit?subscriber=${name}`);
    expect(own.body.items.map((i) => i.action)).toContain('subscriber.secret_read');

    // The request log line of that read names the token id under a field the logger keeps.
    const line = requestLog.find((l) => l.path === path && l.method === 'GET');
    expect(line).toMatchObject({ status: 200, tokenId });
    expect(JSON.stringify(requestLog)).not.toContain(acmeToken);
  });

  it('answers 429 with Retry-After past the rate of a token', async () => {
    const slow = await serve(2);
    // Sent at once, so the bucket (2 a second, 2 at once) cannot refill in between.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${slow}/v1/event-types`, { headers: { authorization: `Bearer ${globexToken}` } }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    const limited = answers.find((a) => a.status === 429);
    if (limited === undefined) throw new Error('no 429');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    await Promise.all(answers.map((a) => (a.bodyUsed ? null : a.arrayBuffer())));
  });

  it('serves /v1/openapi.json: OpenAPI 3.1 JSON naming every route', async () => {
    const res = await fetch(`${base}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    // The portal's link routes are served only by an API that serves the portal (not this one).
    expect(operations).toHaveLength(24);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/subscribers',
        '/v1/subscribers/{name}',
        '/v1/subscribers/{name}/dead-letters/replay',
        '/v1/subscribers/{name}/rewind',
        '/v1/jobs/{id}',
        '/v1/events/{id}/ledger',
        '/v1/event-types',
        '/v1/audit',
        '/v1/subscribers/{name}/events',
        '/v1/subscribers/{name}/ack',
        '/v1/subscribers/{name}/nack',
        '/v1/messages',
        '/v1/messages/{eventId}',
        '/v1/messages/{eventId}/payload',
        '/v1/messages/{eventId}/subscribers/{name}/resend',
        '/v1/subscribers/{name}/send-example',
      ]),
    );
  });
});

describe('a replay over the management API', () => {
  const fx = new KafkaFixture();
  const factory = new EventFactory();
  const receivers = new ReceiverPool();

  afterAll(async () => {
    await fx.close();
    await receivers.closeAll();
  });

  it('is a job (202) whose dead letters a real receiver accepts, recorded in the audit trail; another tenant gets 404', async () => {
    await fx.connect();
    await factory.init();
    const topic = await fx.topic(1);
    const events = [factory.event(), factory.event()];
    const receiver = await receivers.start({ behaviour: { fixedStatus: 422 } });
    const name = uniqueName('mapi-replay');
    // In the catalog for the API; the pusher runs one of the same name and URL on its own.
    const definition = { url: receiver.url, allowPrivateNetwork: true, allowInsecureHttp: true };
    expect((await call(operatorToken, 'PUT', `/v1/subscribers/${name}`, { body: definition })).status).toBe(
      201,
    );
    await fx.produce(topic, factory, events);
    await fx.startPusher(topic, { name, url: receiver.url });
    const letters = await waitFor(
      'two dead letters',
      async () => {
        const answer = await call<{ items: { eventId: string }[] }>(
          operatorToken,
          'GET',
          `/v1/subscribers/${name}/dead-letters?reason=terminal&status=4xx`,
        );
        return answer.status === 200 && answer.body.items.length === 2 ? answer.body.items : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 500 },
    );
    expect(letters.map((l) => l.eventId).sort()).toEqual(events.map((e) => e.id).sort());

    const foreign = await call(acmeToken, 'POST', `/v1/subscribers/${name}/dead-letters/replay`, {
      body: {},
    });
    expect(foreign.status).toBe(404);

    receiver.setBehaviour({ fixedStatus: null });
    const started = await call<{ id: string; state: string }>(
      operatorToken,
      'POST',
      `/v1/subscribers/${name}/dead-letters/replay`,
      { body: { reasons: ['terminal'] } },
    );
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const job = await waitFor(
      'the job done',
      async () => {
        const answer = await call<{
          state: string;
          error: string | null;
          summary: { replayed: unknown[] } | null;
        }>(operatorToken, 'GET', `/v1/jobs/${started.body.id}`);
        return answer.body.state === 'running' ? undefined : answer.body;
      },
      { timeoutMs: 45_000, intervalMs: 250 },
    );
    expect([job.state, job.error]).toEqual(['done', null]);
    expect(job.summary?.replayed).toHaveLength(2);
    expect((await call(acmeToken, 'GET', `/v1/jobs/${started.body.id}`)).status).toBe(404);
    await waitFor(
      'both replayed events accepted',
      async () => (events.every((e) => receiver.hasAccepted(name, e.id)) ? true : undefined),
      { timeoutMs: 45_000 },
    );
    const { records } = await readAuditTrail(kafka, { subscriber: name });
    const replayed = records.find((r) => r.action === 'dead_letters.replayed');
    expect(replayed?.actor).toEqual({
      kind: 'token',
      tokenId: tokens.authorize(`Bearer ${operatorToken}`)?.id,
    });
    expect(replayed?.detail).toMatchObject({ replayed: 2 });
  }, 120_000);
});
