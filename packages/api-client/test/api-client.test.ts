import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiServer, ApiTokens, managementRoutes, type PortalLinksPort, Router } from '@hookstream/api';
import { type PortalLink, portalLinkView } from '@hookstream/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { API_OPERATIONS, ApiClient, ApiClientError, retryAfterMsOf } from '../src/index.ts';
import { fakeService } from './fake-service.ts';

const OPERATOR_TOKEN = 'operator-token-0123456789';
const ACME_TOKEN = 'acme-token-0123456789abc';

const routes = managementRoutes(fakeService(), () => ({}));

/**
 * The portal link routes (packages/api/src/portal-link-routes.ts) are served only by an API that
 * serves the portal, so they are not in the management table: their own test below holds them to
 * their method and path, against portalLinkRoutes.
 */
const PENDING = new Set(['createPortalLink', 'listPortalLinks', 'revokePortalLink', 'eraseTenantMessages']);
const router = new Router(routes);
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A real ApiServer over in-memory ports; `seen` is every request it answered, as it logs them. */
async function serve(rate = 1000, limiter?: { now: () => number; answered: (status: number) => void }) {
  const seen: { method: string; path: string; status: number }[] = [];
  const server = new ApiServer({
    service: fakeService(),
    tokens: ApiTokens.parse([`${OPERATOR_TOKEN}=*`, `${ACME_TOKEN}@acme`]),
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: rate,
    ...(limiter === undefined ? {} : { now: limiter.now }),
    log: (_level, message, fields) => {
      if (message !== 'request') return;
      const answered = fields as (typeof seen)[number];
      seen.push(answered);
      limiter?.answered(answered.status);
    },
  });
  const baseUrl = await server.start();
  closers.push(() => server.close());
  return { baseUrl, seen };
}

/** One call per operationId, with arguments its route takes. A route missing here fails the test. */
const CALLS: Record<string, (c: ApiClient) => Promise<unknown>> = {
  getOpenApi: (c) => c.getOpenApi(),
  listSubscribers: (c) => c.listSubscribers({ limit: 10 }),
  getSubscriber: (c) => c.getSubscriber('cov'),
  putSubscriber: (c) => c.putSubscriber('cov', { url: 'https://cov.example.com/hook' }),
  deleteSubscriber: (c) => c.deleteSubscriber('cov'),
  pauseSubscriber: (c) => c.pauseSubscriber('cov', { reason: 'coverage' }),
  resumeSubscriber: (c) => c.resumeSubscriber('cov'),
  rewindSubscriber: (c) => c.rewindSubscriber('cov', { to: 'earliest', dryRun: true }),
  getSecret: (c) => c.getSecret('cov'),
  rotateSecret: (c) => c.rotateSecret('cov', { graceMs: 0 }),
  listDeadLetters: (c) => c.listDeadLetters('cov', { reason: ['exhausted'], status: ['5xx'], limit: 5 }),
  replayDeadLetters: (c) => c.replayDeadLetters('cov', { dryRun: true }),
  getJob: (c) => c.getJob('job_unknown'),
  getEventLedger: (c) => c.getEventLedger('evt-1'),
  listEventTypes: (c) => c.listEventTypes(),
  listAudit: (c) => c.listAudit({ subscriber: 'cov', limit: 3 }),
  leaseEvents: (c) => c.leaseEvents('cov', { max: 10, wait: 0, lease: 30 }),
  ackEvents: (c) => c.ackEvents('cov', { lease: 'lease_x', cursors: ['events:0:1'] }),
  nackEvents: (c) => c.nackEvents('cov', { lease: 'lease_x', eventIds: ['evt-1'], delayMs: 1000 }),
  listMessages: (c) => c.listMessages({ tenant: 'acme', subscriber: ['cov'], state: 'delivered', limit: 10 }),
  getMessage: (c) => c.getMessage('msg-1', { tenant: 'acme' }),
  getMessagePayload: (c) => c.getMessagePayload('msg-1', { tenant: 'acme' }),
  resendMessage: (c) => c.resendMessage('evt-1', 'cov'),
  sendExample: (c) => c.sendExample('cov', 'order.created'),
  createPortalLink: (c) => c.createPortalLink({ tenant: 'acme', scope: 'manage' }),
  listPortalLinks: (c) => c.listPortalLinks({ tenant: 'acme', state: 'all' }),
  revokePortalLink: (c) => c.revokePortalLink('pl_AAAAAAAAAAAAAAAAAAAA'),
};

describe('the client covers the route table', () => {
  it('has an operation with the same method and path, and a method of that name, for every route, and no other', () => {
    const ids = routes.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of routes) {
      const operation = (API_OPERATIONS as Record<string, { method: string; path: string } | undefined>)[
        route.operationId
      ];
      expect(operation, `the client has no operation ${route.operationId}`).toEqual({
        method: route.method,
        path: route.path,
      });
      expect(typeof (ApiClient.prototype as unknown as Record<string, unknown>)[route.operationId]).toBe(
        'function',
      );
    }
    expect(
      Object.keys(API_OPERATIONS)
        .filter((id) => !PENDING.has(id))
        .sort(),
    ).toEqual([...ids].sort());
  });

  it("each method's request reaches its own route on a real server", async () => {
    const { baseUrl, seen } = await serve();
    const client = new ApiClient({ baseUrl, token: OPERATOR_TOKEN, maxRetries: 0 });
    expect(
      Object.keys(CALLS)
        .filter((id) => !PENDING.has(id))
        .sort(),
    ).toEqual(routes.map((r) => r.operationId).sort());
    // In an order where each finds what it needs: created first, deleted last.
    const order = [
      'putSubscriber',
      ...Object.keys(CALLS).filter(
        (k) => k !== 'putSubscriber' && k !== 'deleteSubscriber' && !PENDING.has(k),
      ),
      'deleteSubscriber',
    ];
    for (const id of order) {
      const before = seen.length;
      const outcome = await CALLS[id]?.(client).then(
        () => 'ok',
        (err: unknown) => err,
      );
      const request = seen[before];
      expect(request, `${id} sent nothing`).toBeDefined();
      const match = router.match(request?.method ?? '', request?.path ?? '');
      expect(match.kind === 'route' ? match.route.operationId : match.kind, id).toBe(id);
      // Only the unknown job and the secret that is not managed are refused, by their routes (not a missing one).
      if (id === 'getJob') expect((outcome as ApiClientError).code).toBe('not_found');
      else if (id === 'rotateSecret' || id === 'getSecret')
        expect((outcome as ApiClientError).code).toBe('not_managed');
      // The fake serves no pull subscribers.
      else if (id === 'leaseEvents' || id === 'ackEvents' || id === 'nackEvents')
        expect((outcome as ApiClientError).code).toBe('pull_unavailable');
      else expect(outcome, `${id}: ${String(outcome)}`).toBe('ok');
    }
  });
});

describe('the client', () => {
  it('creates, reads with the ETag, replaces only with a current If-Match (412 otherwise), pages and deletes', async () => {
    const { baseUrl } = await serve();
    const client = new ApiClient({ baseUrl: `${baseUrl}/`, token: OPERATOR_TOKEN });
    const created = await client.putSubscriber('s1', { url: 'https://s1.example.com/hook' });
    expect(created.action).toBe('created');
    const read = await client.getSubscriber('s1');
    expect(read.etag).toBe(created.subscriber.etag);
    expect(read.definition.url).toBe('https://s1.example.com/hook');
    const stale = await client
      .putSubscriber('s1', { url: 'https://s1.example.com/other' }, { ifMatch: '"999"' })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ApiClientError);
    expect(stale).toMatchObject({ code: 'precondition_failed', status: 412, canRetry: false });
    const changed = await client.putSubscriber(
      's1',
      { url: 'https://s1.example.com/other' },
      { ifMatch: read.etag },
    );
    expect(changed.action).toBe('changed');
    for (const n of ['s2', 's3']) await client.putSubscriber(n, { url: `https://${n}.example.com/hook` });
    const first = await client.listSubscribers({ limit: 2 });
    expect([first.items.map((i) => i.name), first.nextCursor]).toEqual([['s1', 's2'], 's2']);
    const all: string[] = [];
    for await (const item of client.subscribers(1)) all.push(item.name);
    expect(all).toEqual(['s1', 's2', 's3']);
    expect((await client.pauseSubscriber('s1', { reason: 'test' })).state.kind).toBe('paused');
    expect((await client.resumeSubscriber('s1')).state.kind).toBe('active');
    expect((await client.deleteSubscriber('s1')).deleted).toBe(true);
    // A tenant sees nothing of the operator's.
    const acme = new ApiClient({ baseUrl, token: ACME_TOKEN });
    expect(await acme.getSubscriber('s2').catch((e: unknown) => e)).toMatchObject({
      code: 'not_found',
      status: 404,
    });
    expect((await acme.listSubscribers()).items).toEqual([]);
  });

  it('refuses a bad request before sending anything, naming the field', async () => {
    const { baseUrl, seen } = await serve();
    const client = new ApiClient({ baseUrl, token: OPERATOR_TOKEN });
    const badName = await client.getSubscriber('Not A Name').catch((e: unknown) => e);
    expect(badName).toMatchObject({ code: 'invalid_request', status: null });
    const badDefinition = await client.putSubscriber('s1', { url: 'ftp://x' }).catch((e: unknown) => e);
    expect(badDefinition).toMatchObject({ code: 'invalid_definition', details: [{ path: 'url' }] });
    expect((badDefinition as Error).message).toMatch(/url: /);
    expect(await client.listSubscribers({ limit: 5000 }).catch((e: unknown) => e)).toMatchObject({
      code: 'invalid_request',
    });
    expect(seen).toEqual([]);
    expect(() => new ApiClient({ baseUrl: 'ftp://x', token: OPERATOR_TOKEN })).toThrow(/baseUrl/);
    expect(() => new ApiClient({ baseUrl, token: OPERATOR_TOKEN, maxRetries: 50 })).toThrow(/maxRetries/);
  });

  it('says 429 can be retried with Retry-After as a hint, and waits it out itself only within its bound', async () => {
    // The limiter's clock moves only when the test says: with a real one, a second between two
    // requests on a busy machine refilled the bucket and the expected 429 never came.
    let now = 0;
    let refillOn429 = false;
    const { baseUrl } = await serve(1, {
      now: () => now,
      answered: (status) => {
        // The client waits out the Retry-After (1 s) before its retry: the bucket is full by then.
        if (status === 429 && refillOn429) now += 1000;
      },
    });
    const impatient = new ApiClient({ baseUrl, token: OPERATOR_TOKEN, maxRetries: 0 });
    await impatient.listSubscribers();
    const limited = await impatient.listSubscribers().catch((e: unknown) => e);
    expect(limited).toMatchObject({ code: 'rate_limited', status: 429, canRetry: true });
    expect((limited as ApiClientError).retryAfterMs).toBeGreaterThan(0);
    refillOn429 = true;
    const patient = new ApiClient({ baseUrl, token: OPERATOR_TOKEN, maxRetries: 3, maxRetryWaitMs: 2000 });
    expect((await patient.listSubscribers()).items).toEqual([]);
  });

  it('fails loudly on an answer its schema does not describe, and on no answer at all', async () => {
    const drifted = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: 'not a list', nextCursor: null }));
    });
    await new Promise<void>((ok) => drifted.listen(0, '127.0.0.1', ok));
    closers.push(() => new Promise((ok) => drifted.close(() => ok())));
    const { port } = drifted.address() as AddressInfo;
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${port}`, token: OPERATOR_TOKEN });
    const drift = await client.listSubscribers().catch((e: unknown) => e);
    expect(drift).toMatchObject({ code: 'invalid_answer', status: 200, canRetry: false });
    expect((drift as ApiClientError).details.map((d) => d.path)).toContain('items');
    const nowhere = new ApiClient({ baseUrl: 'http://127.0.0.1:1', token: OPERATOR_TOKEN });
    expect(await nowhere.listSubscribers().catch((e: unknown) => e)).toMatchObject({
      code: 'unreachable',
      status: null,
      canRetry: true,
    });
  });

  it('passwords are not echoed: a base URL with user info is refused, and an unreachable one shows no query value', async () => {
    const withUser = (() => {
      try {
        return new ApiClient({ baseUrl: 'http://ops:s3cret@127.0.0.1:1', token: OPERATOR_TOKEN });
      } catch (err) {
        return err;
      }
    })();
    expect(withUser).toMatchObject({ code: 'invalid_options', canRetry: false });
    expect((withUser as Error).message).toMatch(/^baseUrl: no user:password@/);
    expect((withUser as Error).message).not.toContain('s3cret');
    const nowhere = new ApiClient({ baseUrl: 'http://127.0.0.1:1/?key=s3cret', token: OPERATOR_TOKEN });
    const failed = await nowhere.listSubscribers().catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'unreachable', canRetry: true });
    expect((failed as Error).message).toContain('cannot reach http://127.0.0.1:1/?key=REDACTED');
    expect((failed as Error).message).not.toContain('s3cret');
  });

  it('reads Retry-After as seconds or a date, bounded', () => {
    expect(retryAfterMsOf('2')).toBe(2000);
    expect(retryAfterMsOf('0.25')).toBe(250);
    expect(retryAfterMsOf(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMsOf('99999999')).toBe(3_600_000);
    expect(retryAfterMsOf('soon')).toBeNull();
    expect(retryAfterMsOf(null)).toBeNull();
  });
});

describe('the messages and actions', () => {
  it("lists and reads a tenant's messages, refusing another tenant's (403) and an unknown one (404)", async () => {
    const { baseUrl } = await serve();
    const acme = new ApiClient({ baseUrl, token: ACME_TOKEN, maxRetries: 0 });
    // A tenant without endpoints has no messages to see: the index is not even asked.
    expect((await acme.listMessages()).items).toEqual([]);
    await acme.putSubscriber('cov', { url: 'https://cov.example.com/hook' });
    const page = await acme.listMessages({ state: 'delivered' });
    expect(page.items.map((m) => [m.eventId, m.state, m.endpoints[0]?.lastStatus])).toEqual([
      ['msg-1', 'delivered', 200],
    ]);
    expect((await acme.getMessage('msg-1')).attempts[0]).toMatchObject({ status: 200, durationMs: 9 });
    await expect(acme.listMessages({ tenant: 'globex' })).rejects.toMatchObject({
      code: 'forbidden_tenant',
      status: 403,
    });
    await expect(acme.getMessage('msg-2')).rejects.toMatchObject({ code: 'not_found', status: 404 });
    // A page past the bound is refused before anything is sent.
    await expect(acme.listMessages({ limit: 500 })).rejects.toMatchObject({
      code: 'invalid_request',
      status: null,
    });
  });

  it('resends and sends an example, refusing a bad name or type before sending', async () => {
    const { baseUrl, seen } = await serve();
    const client = new ApiClient({ baseUrl, token: OPERATOR_TOKEN, maxRetries: 0 });
    await client.putSubscriber('cov', { url: 'https://cov.example.com/hook' });
    expect(await client.resendMessage('evt-1', 'cov')).toEqual({
      eventId: 'evt-1',
      subscriber: 'cov',
      sentTo: 'hookstream.sub.cov.retry.1:0:0',
    });
    const example = await client.sendExample('cov', 'order.created');
    expect(example).toMatchObject({ subscriber: 'cov', type: 'order.created' });
    const before = seen.length;
    await expect(client.sendExample('cov', 'Not A Type')).rejects.toMatchObject({ code: 'invalid_body' });
    await expect(client.resendMessage('evt 1', 'cov')).rejects.toMatchObject({ code: 'invalid_request' });
    expect(seen.length).toBe(before);
  });
});

describe('the portal links', () => {
  /**
   * A real ApiServer serving the link routes over an in-memory link store, recording each
   * request as it logs them.
   */
  async function linkServer() {
    const requests: { method: string; path: string; status: number }[] = [];
    const links = new Map<string, PortalLink>();
    const port: PortalLinksPort = {
      mint: async (request, by) => {
        const link: PortalLink = {
          version: 1,
          id: 'pl_AAAAAAAAAAAAAAAAAAAA',
          tenant: request.tenant,
          scope: request.scope,
          createdAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + request.lifetimeSeconds * 1000).toISOString(),
          createdBy: by,
          secretDigest: `sha256:${'0'.repeat(64)}`,
        };
        links.set(link.id, link);
        return { link, token: `${link.id}.secret` };
      },
      revoke: async (id, by) => {
        const link = links.get(id);
        if (link === undefined) return null;
        const revoked = { ...link, revokedAt: new Date().toISOString(), revokedBy: by };
        links.set(id, revoked);
        return revoked;
      },
      list: () => [...links.values()].map((l) => portalLinkView(l, Date.now())),
      erase: async (tenant, by) => ({ version: 1, tenant, at: new Date().toISOString(), by }),
    };
    const server = new ApiServer({
      service: fakeService(),
      tokens: ApiTokens.parse([`${OPERATOR_TOKEN}=*`, `${ACME_TOKEN}@acme`]),
      host: '127.0.0.1',
      port: 0,
      ratePerSecond: 1000,
      portal: {
        links: port,
        pages: { handle: async (_req, res) => void res.writeHead(404).end() },
        publicUrl: 'https://portal.example.com',
      },
      log: (_level, message, fields) => {
        if (message === 'request') requests.push(fields as (typeof requests)[number]);
      },
    });
    const baseUrl = await server.start();
    closers.push(() => server.close());
    return { baseUrl, requests };
  }

  it('mints, lists and revokes with the routes of the document, and parses the answers', async () => {
    const { baseUrl, requests } = await linkServer();
    const client = new ApiClient({ baseUrl, token: OPERATOR_TOKEN, maxRetries: 0 });
    const minted = await client.createPortalLink({ tenant: 'acme', scope: 'manage', lifetimeSeconds: 3600 });
    expect(minted.url).toBe('https://portal.example.com/portal/pl_AAAAAAAAAAAAAAAAAAAA.secret/');
    expect((await client.listPortalLinks({ tenant: 'acme', state: 'all', limit: 5 })).items).toHaveLength(1);
    expect((await client.revokePortalLink(minted.link.id)).link.state).toBe('revoked');
    expect(await client.eraseTenantMessages('acme')).toMatchObject({
      tenant: 'acme',
      by: expect.stringMatching(/^tok_/),
    });
    expect(requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /v1/portal-links 201',
      'GET /v1/portal-links 200',
      'DELETE /v1/portal-links/pl_AAAAAAAAAAAAAAAAAAAA 200',
      'DELETE /v1/tenants/acme/messages 200',
    ]);
    for (const route of [
      'createPortalLink',
      'listPortalLinks',
      'revokePortalLink',
      'eraseTenantMessages',
    ] as const)
      expect(requests.some((r) => r.method === API_OPERATIONS[route].method)).toBe(true);
  });

  it("refuses a request the contract refuses before sending, and carries a tenant token's 403", async () => {
    const { baseUrl, requests } = await linkServer();
    const client = new ApiClient({ baseUrl, token: OPERATOR_TOKEN, maxRetries: 0 });
    await expect(client.createPortalLink({ tenant: 'acme', lifetimeSeconds: 5 })).rejects.toMatchObject({
      code: 'invalid_body',
    });
    await expect(client.revokePortalLink('not-a-link')).rejects.toMatchObject({ code: 'invalid_request' });
    expect(requests).toEqual([]);
    const tenant = new ApiClient({ baseUrl, token: ACME_TOKEN, maxRetries: 0 });
    await expect(tenant.listPortalLinks()).rejects.toMatchObject({
      code: 'forbidden',
      status: 403,
      canRetry: false,
    });
  });
});
