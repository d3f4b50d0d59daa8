import { CE_HEADER, type SubscriberRecord } from '@hookstream/contracts';
import { type ManagementPorts, ManagementService, type MessageIndexQuery } from '@hookstream/management';
import type { TierRecord } from '@hookstream/replay';
import { foldRegistry } from '@hookstream/subscribers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiServer,
  ApiTokens,
  answerSchema,
  managementRoutes,
  openApiDocument,
  Router,
} from '../src/index.ts';

const OPERATOR_TOKEN = 'operator-token-0123456789';
const ACME_TOKEN = 'acme-token-0123456789abc';
const AT = '2026-02-01T00:00:00.000Z';

function subscriber(name: string, tenant: string, eventTypes = ['*']): SubscriberRecord {
  return {
    version: 4,
    definition: {
      name,
      tenant,
      url: `https://${name}.example.com/hook`,
      eventTypes,
      rate: { perSecond: 50, burst: 0 },
      concurrency: 10,
      timeoutMs: 10_000,
      retry: { delaysMs: [1000], maxAttempts: 6, maxAgeMs: 86_400_000, jitter: 0.2 },
      start: 'latest',
      ordering: 'none',
      headers: {},
      allowPrivateNetwork: false,
    },
    state: { kind: 'active' },
    createdAt: AT,
    updatedAt: AT,
  };
}

/** acme's and globex's subscribers, one acme event at events:0:5, an index that records its queries. */
function fake() {
  const records = [
    subscriber('orders', 'acme'),
    subscriber('shipped', 'acme', ['order.shipped']),
    subscriber('g', 'globex'),
  ];
  const written: { subscriber: string; record: TierRecord }[] = [];
  const lists: MessageIndexQuery[] = [];
  const unused = async (): Promise<never> => {
    throw new Error('not used by these tests');
  };
  const ports: ManagementPorts = {
    eventsTopic: 'events',
    secretsKey: undefined,
    catalog: {
      read: async () => ({
        ...foldRegistry([]),
        subscribers: new Map(records.map((r) => [r.definition.name, r])),
        revisions: new Map(records.map((r, i) => [r.definition.name, String(i)])),
      }),
      write: unused,
      writeIfRevision: unused,
    },
    commitStart: unused,
    deleteSubscriber: unused,
    rewind: unused,
    openPublisher: unused,
    overviews: unused,
    instanceStatuses: async () => [],
    readDeadLetters: unused,
    replayDeadLetters: unused,
    ledger: async (eventId) => ({
      eventId,
      origin: eventId === 'evt-acme' ? { topic: 'events', partition: 0, offset: '5' } : null,
      foundIn: 'attempt-log',
      tenant: 'acme',
      subscribers: [],
      otherGroups: 0,
    }),
    eventTypes: () => [
      {
        type: 'order.created',
        subject: 's',
        schema: { type: 'record', name: 'O', fields: [{ name: 'id', type: 'string' }] },
      },
    ],
    audit: { write: async () => undefined },
    readAudit: unused,
    now: () => new Date(AT),
    readRecordAt: async (at) =>
      at.offset === '5'
        ? {
            key: 'k',
            value: Buffer.from('v'),
            headers: {
              [CE_HEADER.id]: 'evt-acme',
              [CE_HEADER.type]: 'order.created',
              [CE_HEADER.tenant]: 'acme',
            },
          }
        : null,
    sendToRetryTier: async (name, record) => {
      written.push({ subscriber: name, record });
      return { topic: `hookstream.sub.${name}.retry.1`, partition: 0, offset: String(written.length - 1) };
    },
    examples: {
      encode: async (e) => ({ key: e.id, value: Buffer.from('{}'), headers: { [CE_HEADER.id]: e.id } }),
    },
    messages: {
      list: async (query) => {
        lists.push(query);
        return { items: [], nextCursor: null };
      },
      get: async () => null,
      origin: async () => null,
    },
  };
  return { service: new ManagementService(ports), written, lists };
}

let server: ApiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const router = new Router(managementRoutes(fake().service, () => ({})));

async function start() {
  const f = fake();
  server = new ApiServer({
    service: f.service,
    tokens: ApiTokens.parse([`${OPERATOR_TOKEN}=*`, `${ACME_TOKEN}@acme`]),
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: 1000,
  });
  const base = await server.start();
  /** Calls a route and checks the answer against the schema the document gives its status. */
  const call = async (method: string, path: string, body?: unknown, token = ACME_TOKEN) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await res.json();
    const match = router.match(method, new URL(path, 'http://x').pathname);
    if (match.kind !== 'route') throw new Error(`${path} is no route`);
    const schema = answerSchema(match.route, res.status);
    expect(schema, `${method} ${path} ${res.status} is in the document`).toBeDefined();
    expect(schema?.safeParse(json).success, `${method} ${path}: ${JSON.stringify(json)}`).toBe(true);
    return { status: res.status, body: json as Record<string, unknown> & { error?: { code: string } } };
  };
  return { ...f, call };
}

describe('the messages routes', () => {
  it('are in the document with their answers', () => {
    const document = openApiDocument(
      managementRoutes({} as ManagementService, () => ({})),
      { version: 't' },
    ) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/messages',
        '/v1/messages/{eventId}',
        '/v1/messages/{eventId}/subscribers/{name}/resend',
        '/v1/subscribers/{name}/send-example',
      ]),
    );
    expect(Object.keys(document.paths['/v1/subscribers/{name}/send-example']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '404', '409', '422', '503']),
    );
  });

  it("list a tenant's own messages (comma-separated lists), refuse another tenant (403), and bound the page", async () => {
    const { call, lists } = await start();
    const page = await call(
      'GET',
      '/v1/messages?subscriber=orders,g&type=order.created&state=failed&limit=20',
    );
    expect(page).toEqual({ status: 200, body: { items: [], nextCursor: null } });
    expect(lists).toEqual([
      { tenant: 'acme', subscribers: ['orders'], types: ['order.created'], state: 'failed', limit: 20 },
    ]);
    expect((await call('GET', '/v1/messages?tenant=globex')).body.error?.code).toBe('forbidden_tenant');
    expect((await call('GET', '/v1/messages?limit=101')).status).toBe(400);
    expect((await call('GET', '/v1/messages', undefined, OPERATOR_TOKEN)).body.error?.code).toBe(
      'invalid_request',
    );
    expect((await call('GET', '/v1/messages/evt-x')).status).toBe(404);
  });

  it("resend to the caller's endpoint only; another tenant's endpoint is 404 and nothing is written", async () => {
    const { call, written } = await start();
    expect(await call('POST', '/v1/messages/evt-acme/subscribers/g/resend')).toMatchObject({ status: 404 });
    expect((await call('POST', '/v1/messages/evt-acme/subscribers/shipped/resend')).body.error?.code).toBe(
      'type_not_taken',
    );
    expect(written).toEqual([]);
    const sent = await call('POST', '/v1/messages/evt-acme/subscribers/orders/resend');
    expect(sent).toEqual({
      status: 200,
      body: { eventId: 'evt-acme', subscriber: 'orders', sentTo: 'hookstream.sub.orders.retry.1:0:0' },
    });
    expect(written.map((w) => w.subscriber)).toEqual(['orders']);
  });

  it('send an example of a type the endpoint takes; a body without a type is 422', async () => {
    const { call, written } = await start();
    expect((await call('POST', '/v1/subscribers/orders/send-example', {})).status).toBe(422);
    expect(
      (await call('POST', '/v1/subscribers/shipped/send-example', { type: 'order.created' })).body.error
        ?.code,
    ).toBe('type_not_taken');
    const sent = await call('POST', '/v1/subscribers/orders/send-example', { type: 'order.created' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ subscriber: 'orders', type: 'order.created' });
    expect(written.map((w) => w.subscriber)).toEqual(['orders']);
  });
});
