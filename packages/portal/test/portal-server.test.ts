import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PortalLink, PortalLinkRequest } from '@hookstream/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LinkLog, PortalLinkBook } from '../src/link-book.ts';
import { csrfTokenOf, parseLinkToken } from '../src/link-secret.ts';
import { PortalServer, type PortalServerOptions } from '../src/portal-server.ts';
import { FakeBackend } from './fake-backend.ts';

const nowhere: LinkLog = { append: async () => undefined, remove: async () => undefined };

let server: Server;
let origin = '';
let backend: FakeBackend;
let links: PortalLinkBook;

async function serve(options: Partial<PortalServerOptions> = {}): Promise<void> {
  const portal = new PortalServer({ links, backend, ...options });
  server = createServer((req, res) => void portal.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function mint(over: Partial<PortalLinkRequest> = {}) {
  const { link, token } = await links.mint(
    { tenant: 'acme', scope: 'manage', lifetimeSeconds: 600, ...over },
    'tok_op',
  );
  const secret = parseLinkToken(token)?.secret ?? '';
  return { link, base: `${origin}/portal/${token}`, csrf: csrfTokenOf(secret) };
}

function post(url: string, fields: Record<string, string>, from = origin) {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: from },
    body: new URLSearchParams(fields).toString(),
  });
}

beforeEach(() => {
  backend = new FakeBackend();
  backend.add('acme-orders', 'acme');
  backend.add('acme-billing', 'acme', { url: 'https://example.com/<script>alert(1)</script>' });
  backend.add('globex-orders', 'globex');
  links = new PortalLinkBook(nowhere);
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('PortalServer', () => {
  it('shows the tenant’s endpoints only, escaped, and never another tenant’s', async () => {
    await serve();
    const { base } = await mint();
    const page = await (await fetch(`${base}/`)).text();
    expect(page).toContain('acme-orders');
    expect(page).not.toContain('globex-orders');
    const billing = await (await fetch(`${base}/endpoints/acme-billing`)).text();
    expect(billing).toContain('&lt;script&gt;');
    expect(billing).not.toContain('<script>');
    expect((await fetch(`${base}/endpoints/globex-orders`)).status).toBe(404);
  });

  it('acts for a manage link with its CSRF token from its own origin, and names the link to the backend', async () => {
    await serve();
    const { base, csrf } = await mint({ user: 'bob@acme' });
    const done = await post(`${base}/messages/acme-1/resend`, { csrf, subscriber: 'acme-orders' });
    expect(done.status).toBe(404);
    backend.messages.push({
      eventId: 'acme-1',
      tenant: 'acme',
      type: 'shipment.updated',
      firstAt: 'a',
      lastAt: 'b',
      state: 'failed',
      endpoints: [],
      attempts: [],
    });
    expect(await (await fetch(`${base}/messages/acme-1`)).text()).toContain(
      `3 bytes, SHA-256 <code>${'a'.repeat(64)}`,
    );
    const resent = await post(`${base}/messages/acme-1/resend`, { csrf, subscriber: 'acme-orders' });
    expect(resent.status).toBe(303);
    expect(backend.calls).toContain('resend acme-1 acme-orders by portal');
    expect((await post(`${base}/endpoints/acme-orders/pause`, { csrf: 'wrong' })).status).toBe(403);
    expect((await post(`${base}/endpoints/acme-orders/pause`, { csrf }, 'https://evil.example')).status).toBe(
      403,
    );
    expect((await post(`${base}/endpoints/globex-orders/pause`, { csrf })).status).toBe(404);
    expect(backend.calls.filter((c) => c.startsWith('pause'))).toEqual([]);
    expect((await post(`${base}/endpoints/acme-orders/pause`, { csrf })).status).toBe(303);
    expect(backend.calls).toContain('pause acme-orders');
  });

  it('lets a read link see but not act, and offers it no form', async () => {
    await serve();
    const { base, csrf } = await mint({ scope: 'read' });
    const page = await (await fetch(`${base}/endpoints/acme-orders`)).text();
    expect(page).not.toContain('<form method="post"');
    expect((await post(`${base}/endpoints/acme-orders/pause`, { csrf })).status).toBe(403);
    expect((await post(`${base}/endpoints/acme-orders/rotate-secret`, { csrf })).status).toBe(403);
    expect(backend.calls).toEqual([]);
  });

  it('holds a limited link to its endpoints and types', async () => {
    await serve();
    const { base, csrf } = await mint({ subscribers: ['acme-orders'], eventTypes: ['shipment.updated'] });
    expect((await fetch(`${base}/endpoints/acme-billing`)).status).toBe(404);
    expect(await (await fetch(`${base}/`)).text()).not.toContain('acme-billing');
    expect((await fetch(`${base}/endpoints/new`)).status).toBe(403);
    await fetch(`${base}/messages`);
    expect(backend.queries.at(-1)).toMatchObject({
      subscribers: ['acme-orders'],
      types: ['shipment.updated'],
    });
    const other = await (await fetch(`${base}/messages?type=key.revoked`)).text();
    expect(other).toContain('No messages');
    expect(backend.queries).toHaveLength(1);
    backend.messages.push({
      eventId: 'acme-2',
      tenant: 'acme',
      type: 'key.revoked',
      firstAt: 'a',
      lastAt: 'b',
      state: 'failed',
      endpoints: [],
      attempts: [],
    });
    expect((await fetch(`${base}/messages/acme-2`)).status).toBe(404);
    const save = await post(`${base}/endpoints/acme-orders`, {
      csrf,
      url: 'https://example.com/x',
      eventTypes: 'key.revoked',
    });
    expect(save.status).toBe(422);
    expect(await (await fetch(`${base}/catalogue`)).text()).not.toContain('key.revoked');
  });

  it('refuses an expired, revoked or forged link, then throttles the address', async () => {
    const clock = { now: Date.now() };
    links = new PortalLinkBook(nowhere, () => clock.now);
    await serve({ openThrottle: { maxAttempts: 3 } });
    const expired = await mint({ lifetimeSeconds: 60 });
    const revoked = await mint();
    await links.revoke(revoked.link.id, 'tok_op');
    clock.now += 61_000;
    expect((await fetch(`${expired.base}/`)).status).toBe(403);
    expect((await fetch(`${revoked.base}/`)).status).toBe(403);
    expect((await fetch(`${origin}/portal/pl_AAAAAAAAAAAAAAAAAAAA.${'A'.repeat(43)}/`)).status).toBe(403);
    const fresh = await mint();
    expect((await fetch(`${fresh.base}/`)).status).toBe(429);
  });

  it('may be framed only by the allowed origins', async () => {
    await serve({ frameAncestors: ['https://app.example.com'] });
    const { base } = await mint();
    const res = await fetch(`${base}/`);
    expect(res.headers.get('content-security-policy')).toContain('frame-ancestors https://app.example.com;');
    expect(res.headers.get('x-frame-options')).toBeNull();
    server.close();
    await serve();
    const denied = await fetch(`${(await mint()).base}/`);
    expect(denied.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(denied.headers.get('x-frame-options')).toBe('DENY');
  });

  it('creates an endpoint with a managed secret and shows the secret once', async () => {
    await serve();
    const { base, csrf } = await mint();
    const created = await post(`${base}/endpoints`, {
      csrf,
      name: 'acme-new',
      url: 'https://example.com/hook',
      eventTypes: 'shipment.updated, key.revoked',
      filter: '',
      ratePerSecond: '5',
    });
    expect(created.status).toBe(201);
    expect(await created.text()).toContain('whsec_new');
    const definition = backend.endpoints.get('acme-new')?.definition as PortalLink & Record<string, unknown>;
    expect(definition).toMatchObject({
      secret: { managed: true },
      eventTypes: ['shipment.updated', 'key.revoked'],
      rate: { perSecond: 5 },
    });
    const again = await post(`${base}/endpoints`, {
      csrf,
      name: 'acme-new',
      url: 'https://example.com/hook',
      eventTypes: 'shipment.updated',
    });
    expect(again.status).toBe(409);
  });
});
