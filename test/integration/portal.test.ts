import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { consoleReporter, ensureChromium, loadStackConfig } from '@hookstream/stack';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEnv, startCatalogFleet } from '../support/catalog.ts';
import { exited, spawnCli } from '../support/child.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { waitFor } from '../support/wait.ts';

/**
 * The customer portal end to end, as a platform's customer meets it: a link minted over the API,
 * an endpoint made in the portal, an example delivered to a real receiver, a failure's attempts
 * and answer excerpt, a resend, and the refusals (another tenant, an expired or revoked link, a
 * frame on an origin not allowed). HOOKSTREAM_UPDATE_SCREENSHOTS=1 writes docs/portal's pictures.
 */
const SHOTS =
  process.env.HOOKSTREAM_UPDATE_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../docs/portal')
    : join(tmpdir(), `hookstream-portal-shots-${process.pid}`);
const OPERATOR = `portal-operator-${uniqueName('token')}`;
/** A tenant's API token: its ledger lookups read where the portal store says the event is. */
const ACME_TOKEN = `portal-acme-${uniqueName('token')}`;
const prefix = uniqueName('portal');
const acme = `${prefix}-acme`;
const globex = `${prefix}-globex`;
const endpointName = `${prefix}-orders`;

const fx = new KafkaFixture();
const receivers = new ReceiverPool();
let topic = '';
let receiver: SampleReceiver;
let fleet: FleetProcess;
let api: ReturnType<typeof spawnCli>;
let apiUrl = '';
let context: BrowserContext;
let page: Page;
let userDataDir = '';
let storeDir = '';
const framers: Server[] = [];
let allowedOrigin = '';
let otherOrigin = '';

interface Minted {
  readonly link: { readonly id: string; readonly state: string };
  readonly url: string;
}

async function mint(body: Record<string, unknown>): Promise<Minted> {
  const res = await fetch(`${apiUrl}/v1/portal-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Minted;
}

/** A page of another origin that frames the portal. */
async function framer(): Promise<{ server: Server; origin: string; target: { url: string } }> {
  const target = { url: '' };
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>host app</title><iframe id="portal" src="${target.url}" width="900" height="600"></iframe>`,
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  framers.push(server);
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, target };
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

const arrivals = (name: string) => receiver.arrivals.filter((a) => a.subscriptionId === name);

describe('the customer portal in a real browser', () => {
  let allowed: Awaited<ReturnType<typeof framer>>;
  let other: Awaited<ReturnType<typeof framer>>;
  let expiring: Minted;

  beforeAll(async () => {
    const executablePath = await ensureChromium(loadStackConfig(), consoleReporter);
    await mkdir(SHOTS, { recursive: true });
    await fx.connect();
    topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    receiver = await receivers.start();
    fleet = await startCatalogFleet({ topic, prefix, secretsKey });
    allowed = await framer();
    other = await framer();
    allowedOrigin = allowed.origin;
    otherOrigin = other.origin;
    storeDir = await mkdtemp(join(tmpdir(), 'hookstream-portal-store-'));
    api = spawnCli(
      [
        'api',
        '--port',
        '0',
        '--tenant-private-network',
        '--portal-frame-ancestors',
        allowedOrigin,
        '--portal-store',
        storeDir,
        '--portal-index-since',
        '5m',
      ],
      { ...env, HOOKSTREAM_API_TOKENS: `${OPERATOR}=*,${ACME_TOKEN}@${acme}` },
    );
    apiUrl = await waitFor(
      'the API to listen',
      async () => /hookstream api on (http:\/\/\S+)/.exec(api.output())?.[1],
      {
        timeoutMs: 60_000,
      },
    );
    // Minted first: by the last test its minute is over.
    expiring = await mint({ tenant: acme, scope: 'read', lifetimeSeconds: 60 });
    userDataDir = await mkdtemp(join(tmpdir(), 'hookstream-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      viewport: { width: 1280, height: 800 },
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    if (api !== undefined) {
      api.kill('SIGTERM');
      await exited(api);
    }
    await fleet?.stop();
    await fx.close();
    await receivers.closeAll();
    for (const s of framers) s.close();
    if (userDataDir !== '') await rm(userDataDir, { recursive: true, force: true });
    if (storeDir !== '') await rm(storeDir, { recursive: true, force: true });
    if (process.env.HOOKSTREAM_UPDATE_SCREENSHOTS !== '1') await rm(SHOTS, { recursive: true, force: true });
  });

  let acmeLink: Minted;
  let failedEventId = '';

  it('mints a link over the API for one tenant, and only an operator may', async () => {
    acmeLink = await mint({ tenant: acme, scope: 'manage', user: 'bob@acme.example' });
    expect(acmeLink.url).toContain('/portal/');
    const listed = await fetch(`${apiUrl}/v1/portal-links?tenant=${acme}`, {
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    const ids = ((await listed.json()) as { items: { id: string }[] }).items.map((l) => l.id);
    expect(ids).toContain(acmeLink.link.id);
    expect(JSON.stringify(ids)).not.toContain(acmeLink.url.split('/portal/')[1]?.split('.')[1] ?? 'x');
  });

  it('creates an endpoint in the portal and shows its signing secret once', async () => {
    await page.goto(acmeLink.url);
    await page.click('text=Add an endpoint');
    await page.fill('input[name="name"]', endpointName);
    await page.fill('input[name="url"]', receiver.url);
    await page.fill('input[name="eventTypes"]', 'shipment.updated');
    await page.fill('input[name="ratePerSecond"]', '100');
    await page.click('text=Create endpoint');
    const secret = (await page.locator('[data-field="secret"]').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await shot('secret');
    await waitFor(
      'the fleet to run the new endpoint',
      async () =>
        fleet.entries().some((e) => e.name === endpointName && e.state === 'running') ? true : undefined,
      { timeoutMs: 60_000 },
    );
  });

  it('sends an example that arrives at the real receiver', async () => {
    await page.goto(acmeLink.url);
    expect(await page.locator(`tr[data-endpoint="${endpointName}"]`).count()).toBe(1);
    await shot('endpoints');
    await page.goto(`${acmeLink.url}catalogue`);
    expect(await page.locator('section[data-type="shipment.updated"] [data-field="example"]').count()).toBe(
      1,
    );
    await shot('catalogue');
    await page.goto(`${acmeLink.url}endpoints/${endpointName}`);
    await shot('endpoint');
    await page.selectOption('select[name="type"]', 'shipment.updated');
    await page.click('text=Send example');
    const notice = (await page.locator('[data-field="notice"]').textContent()) ?? '';
    const eventId = /event (\S+)\./.exec(notice)?.[1] ?? '';
    expect(eventId).not.toBe('');
    const arrived = await waitFor('the example at the receiver', async () =>
      arrivals(endpointName).find((a) => a.eventId === eventId),
    );
    expect(arrived.status).toBe(204);
  });

  it('shows a failing endpoint’s attempts with the answer’s excerpt, never a credential', async () => {
    receiver.setBehaviour({ fixedStatus: 500, echoHeaders: true });
    await page.goto(`${acmeLink.url}endpoints/${endpointName}`);
    await page.click('text=Send example');
    const notice = (await page.locator('[data-field="notice"]').textContent()) ?? '';
    failedEventId = /event (\S+)\./.exec(notice)?.[1] ?? '';
    const failed = await waitFor('the failed attempt at the receiver', async () =>
      arrivals(endpointName).find((a) => a.eventId === failedEventId && a.status === 500),
    );
    const signature = failed.headers?.['webhook-signature'] ?? 'none';
    await waitFor(
      'the message in the portal with its failed attempt',
      async () => {
        await page.goto(`${acmeLink.url}messages?eventId=${failedEventId}`);
        return (await page.locator(`tr[data-event="${failedEventId}"]`).count()) > 0 ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    await shot('messages');
    await page.click(`a:text("${failedEventId}")`);
    // The operator's default shows a message's size and hash, never its data.
    expect(await page.locator('[data-field="payload"]').textContent()).toMatch(
      /^\d+ bytes, SHA-256 [0-9a-f]{64}$/,
    );
    const status = await page.locator('[data-field="status"]').first().textContent();
    expect(status).toBe('500');
    const excerpt = (await page.locator('[data-field="excerpt"]').first().textContent()) ?? '';
    expect(excerpt).toContain('"webhook-signature":"[redacted]"');
    expect(excerpt).not.toContain(signature.slice(3, 20));
    await shot('message');
  });

  it('resends the message and sees it delivered', async () => {
    receiver.setBehaviour({ fixedStatus: null, echoHeaders: false });
    await page.click('text=Resend');
    expect(await page.locator('[data-field="notice"]').textContent()).toContain('Sent again');
    await waitFor('the resent message delivered', async () =>
      arrivals(endpointName).find((a) => a.eventId === failedEventId && a.status === 204),
    );
    await waitFor(
      'the delivered step on the message page',
      async () => {
        await page.goto(`${acmeLink.url}messages/${failedEventId}`);
        const steps = await page.locator('tr[data-attempt] [data-field="step"]').allTextContents();
        return steps.includes('delivered') ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    // The store holds the message now: the tenant's ledger lookup starts at the event's record.
    const res = await fetch(`${apiUrl}/v1/events/${failedEventId}/ledger`, {
      headers: { authorization: `Bearer ${ACME_TOKEN}` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const ledger = (await res.json()) as {
      tenant: string;
      foundIn: string;
      subscribers: { subscriber: string; ledger: { state: string } }[];
    };
    expect([ledger.tenant, ledger.foundIn]).toEqual([acme, 'attempt-log']);
    expect(ledger.subscribers.find((l) => l.subscriber === endpointName)?.ledger.state).toBe('delivered');
  });

  it('records every change made in the portal as an audit record naming the link and the user', async () => {
    const res = await fetch(`${apiUrl}/v1/audit?subscriber=${endpointName}`, {
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    const records = ((await res.json()) as { items: { action: string; actor: Record<string, unknown> }[] })
      .items;
    const actions = records.map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['subscriber.created', 'example.sent', 'message.resent']));
    for (const r of records)
      expect(r.actor).toMatchObject({
        kind: 'portal',
        linkId: acmeLink.link.id,
        tenant: acme,
        user: 'bob@acme.example',
      });
  });

  it('shows a second tenant none of the first tenant’s endpoints or messages', async () => {
    const globexLink = await mint({ tenant: globex, scope: 'manage' });
    await page.goto(globexLink.url);
    expect(await page.content()).not.toContain(endpointName);
    const foreign = await fetch(`${globexLink.url}endpoints/${endpointName}`);
    expect(foreign.status).toBe(404);
    expect((await fetch(`${globexLink.url}messages/${failedEventId}`)).status).toBe(404);
    const list = await (await fetch(`${globexLink.url}messages`)).text();
    expect(list).not.toContain(failedEventId);
  });

  it('erases a tenant’s messages from the index on the operator’s request', async () => {
    const res = await fetch(`${apiUrl}/v1/tenants/${acme}/messages`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ tenant: acme });
    await waitFor('the message gone from the portal', async () =>
      (await fetch(`${acmeLink.url}messages/${failedEventId}`)).status === 404 ? true : undefined,
    );
    expect(await (await fetch(`${acmeLink.url}messages`)).text()).not.toContain(failedEventId);
  });

  it('refuses a revoked link, an expired one, and a frame on an origin not allowed', async () => {
    const revoked = await mint({ tenant: acme, scope: 'read' });
    expect((await fetch(revoked.url)).status).toBe(200);
    const del = await fetch(`${apiUrl}/v1/portal-links/${revoked.link.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    expect(del.status).toBe(200);
    await page.goto(revoked.url);
    expect(await page.locator('[data-field="problem"]').textContent()).toContain('expired or been revoked');
    await waitFor(
      'the one-minute link to expire',
      async () => ((await fetch(expiring.url)).status === 403 ? true : undefined),
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    allowed.target.url = acmeLink.url;
    other.target.url = acmeLink.url;
    await page.goto(allowedOrigin);
    const framed = page.frameLocator('#portal');
    await framed.locator('h1').waitFor();
    expect(await framed.locator('h1').textContent()).toBe('Endpoints');
    await page.goto(otherOrigin);
    const blocked = await waitFor('the refused frame', async () =>
      page.frames().find((f) => f !== page.mainFrame() && f.url() !== ''),
    );
    // Chromium puts its own error page in a frame it refuses: nothing of the portal is in it.
    await waitFor('the frame to settle', async () =>
      (await blocked.content()).includes('</body>') ? true : undefined,
    );
    expect(await blocked.content()).not.toContain('Webhooks ·');
    expect(await blocked.locator('text=Add an endpoint').count()).toBe(0);
  });
});
