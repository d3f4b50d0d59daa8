import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FleetProcess } from '@hookstream/pusher';
import type { SampleReceiver } from '@hookstream/receiver';
import { consoleReporter, ensureChromium, loadStackConfig } from '@hookstream/stack';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDefinitions, catalogEnv, startCatalogFleet } from '../support/catalog.ts';
import { exited, spawnCli } from '../support/child.ts';
import { EventFactory, type TestEvent } from '../support/events.ts';
import { uniqueName } from '../support/names.ts';
import { KafkaFixture } from '../support/pushers.ts';
import { ReceiverPool } from '../support/receivers.ts';
import { endpoints } from '../support/stack.ts';
import { waitFor } from '../support/wait.ts';

/**
 * Every run takes the screenshots; HOOKSTREAM_UPDATE_SCREENSHOTS=1 writes them over the ones
 * docs/console.md shows. Otherwise they go to a temporary folder, so a test run never leaves the
 * work tree changed (a PNG differs byte for byte from run to run: names, ages, offsets).
 */
const SHOTS =
  process.env.HOOKSTREAM_UPDATE_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../docs/console')
    : join(tmpdir(), `hookstream-console-shots-${process.pid}`);
const TOKEN = `console-test-${uniqueName('token')}`;
const prefix = uniqueName('console');
/** Its endpoint hangs, then recovers; it is paused and resumed from the page. */
const slow = `${prefix}-slow`;
/** Its endpoint refuses everything (400: terminal), so its events are dead-lettered at once. */
const refused = `${prefix}-refused`;

const fx = new KafkaFixture();
const factory = new EventFactory();
const receivers = new ReceiverPool();
let topic = '';
let slowEndpoint: SampleReceiver;
let refusedEndpoint: SampleReceiver;
let fleet: FleetProcess;
let consoleProcess: ReturnType<typeof spawnCli>;
let base = '';
let context: BrowserContext;
let page: Page;
let userDataDir = '';

const accepted = (r: SampleReceiver, name: string, ids: readonly string[]) =>
  ids.filter((id) =>
    r.arrivals.some((a) => a.subscriptionId === name && a.eventId === id && a.status === 204),
  );
const arrivedAt = (r: SampleReceiver, name: string, ids: readonly string[]) =>
  ids.filter((id) => r.arrivals.some((a) => a.subscriptionId === name && a.eventId === id));

async function publish(count: number): Promise<TestEvent[]> {
  const events = Array.from({ length: count }, () => factory.event());
  await fx.produce(topic, factory, events);
  return events;
}

/** A cell of a subscriber's row on the subscribers page, read while the page reloads by itself. */
async function cell(name: string, field: string): Promise<string | undefined> {
  try {
    return (
      (await page
        .locator(`tr[data-subscriber="${name}"] [data-field="${field}"]`)
        .textContent({ timeout: 1000 })) ?? undefined
    );
  } catch {
    // Between two reloads of the page: read again.
    return undefined;
  }
}

/** A page as the docs show it; `fullPage: false` keeps a long page (the catalogue's schemas) small. */
async function shot(name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

describe('hookstream console in a real browser', () => {
  beforeAll(async () => {
    // First run on a machine: apt-get installs Debian's chromium (about 20 s here, minutes on a cold mirror).
    const executablePath = await ensureChromium(loadStackConfig(), consoleReporter);
    await mkdir(SHOTS, { recursive: true });
    await fx.connect();
    await factory.init();
    topic = await fx.topic(1);
    const { env, secretsKey } = catalogEnv(topic);
    // The slow one takes a request at a time, so a hang holds its whole backlog.
    slowEndpoint = await receivers.start();
    refusedEndpoint = await receivers.start({ behaviour: { fixedStatus: 400 } });
    const common = {
      eventTypes: ['*'],
      start: 'earliest',
      allowPrivateNetwork: true,
      rate: { perSecond: 1000 },
      retry: { delaysMs: [300], maxAttempts: 3, jitter: 0 },
    };
    await applyDefinitions(env, [
      { ...common, name: slow, url: slowEndpoint.url, concurrency: 1, timeoutMs: 30_000 },
      {
        ...common,
        name: refused,
        url: refusedEndpoint.url,
        headers: { authorization: 'Bearer not-for-the-page' },
        secret: { managed: true },
      },
    ]);
    fleet = await startCatalogFleet({ topic, prefix, secretsKey });
    consoleProcess = spawnCli(['console', '--port', '0'], {
      ...env,
      CONSOLE_TOKENS: `another-token-0123456789,${TOKEN}`,
      JAEGER_QUERY_URL: endpoints.jaegerQuery,
    });
    base = await waitFor('the console to listen', async () => {
      return /hookstream console on (http:\/\/\S+)/.exec(consoleProcess.output())?.[1];
    });
    userDataDir = await mkdtemp(join(tmpdir(), 'hookstream-chromium-'));
    // A new empty profile per run: no cookie, cache or setting from another run.
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      viewport: { width: 1280, height: 800 },
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
    // Both subscribers have committed once, so the page has a lag to show.
    const warm = await publish(1);
    await waitFor('the first delivery', async () =>
      accepted(slowEndpoint, slow, [warm[0]?.id ?? '']).length === 1 ? true : undefined,
    );
  }, 300_000);

  afterAll(async () => {
    await context?.close();
    if (consoleProcess !== undefined) {
      consoleProcess.kill('SIGTERM');
      await exited(consoleProcess);
    }
    await fleet?.stop();
    await fx.close();
    await receivers.closeAll();
    if (userDataDir !== '') await rm(userDataDir, { recursive: true, force: true });
    if (process.env.HOOKSTREAM_UPDATE_SCREENSHOTS !== '1') await rm(SHOTS, { recursive: true, force: true });
  });

  it('refuses a request without a session, and a POST without the CSRF token', async () => {
    const anonymous = await fetch(`${base}/`);
    expect(anonymous.status).toBe(401);
    const anonymousPost = await fetch(`${base}/subscribers/${slow}/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: 'reason=x',
    });
    expect(anonymousPost.status).toBe(401);
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const noCsrf = await fetch(`${base}/subscribers/${slow}/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie },
      body: 'reason=forged',
    });
    expect(noCsrf.status).toBe(403);
    const shown = await (await fetch(`${base}/subscribers/${slow}`, { headers: { cookie } })).text();
    expect(shown).toContain('>active<');
  });

  it('logs in through the form', async () => {
    await page.goto(`${base}/`);
    await shot('login');
    await page.fill('input[name="token"]', TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForSelector('table#subscribers');
    expect(await page.title()).toContain('Subscribers');
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'hookstream_console')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
  });

  it('shows a subscriber’s lag rise while its endpoint hangs, refreshing by itself', async () => {
    // Only this test's subscribers: the shared stack's catalog holds other files' too.
    await page.goto(`${base}/?q=${prefix}`);
    slowEndpoint.setBehaviour({ delayMs: 6000 });
    await publish(6);
    // No reload here: the page's own refresh brings the new numbers.
    await waitFor(
      'the lag to rise on the page',
      async () => {
        const lag = Number(await cell(slow, 'lag'));
        return lag >= 4 ? lag : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(await cell(slow, 'state')).toBe('active');
    await waitFor(
      'the oldest unsettled age',
      async () => ((await cell(slow, 'oldest')) ?? '–') !== '–' || undefined,
      {
        timeoutMs: 15_000,
      },
    );
    await shot('subscribers');
    slowEndpoint.setBehaviour({ delayMs: 0 });
    await waitFor(
      'the backlog to drain',
      async () => ((await cell(slow, 'lag')) === '0' ? true : undefined),
      {
        timeoutMs: 30_000,
      },
    );
  });

  it('pauses by clicking: deliveries stop and the state says paused; resume delivers the backlog', async () => {
    await page.goto(`${base}/subscribers/${slow}`);
    await page.fill('input[name="reason"]', 'endpoint migration');
    await page.click('#pause');
    await page.waitForSelector('#state.state-paused');
    expect(await page.locator('#state').textContent()).toBe('paused');
    await waitFor('the fleet to stop the paused subscriber', async () =>
      fleet.entries().some((e) => e.name === slow && e.state === 'running') ? undefined : true,
    );
    const held = await publish(3);
    const ids = held.map((e) => e.id);
    // The other subscriber reads the same topic: once it has them, the paused one has had its chance.
    await waitFor('the active subscriber to get the new events', async () =>
      arrivedAt(refusedEndpoint, refused, ids).length === ids.length ? true : undefined,
    );
    expect(arrivedAt(slowEndpoint, slow, ids)).toEqual([]);
    await page.goto(`${base}/?q=${prefix}`);
    await waitFor('the paused state and its lag on the list', async () =>
      (await cell(slow, 'state')) === 'paused' && Number(await cell(slow, 'lag')) >= 3 ? true : undefined,
    );
    await page.goto(`${base}/subscribers/${slow}`);
    await shot('subscriber');
    await page.click('#resume');
    await page.waitForSelector('#state.state-active');
    await waitFor(
      'the backlog delivered after resume',
      async () => (accepted(slowEndpoint, slow, ids).length === ids.length ? true : undefined),
      { timeoutMs: 30_000 },
    );
  });

  it('shows no secret on a subscriber’s page', async () => {
    await page.goto(`${base}/subscribers/${refused}`);
    const text = await page.content();
    expect(text).toContain('managed (sealed under key');
    expect(text).not.toContain('not-for-the-page');
    expect(text).not.toContain('"ciphertext"');
    expect(text).not.toContain('whsec_');
  });

  it('replays a dead letter by clicking, dry run first, and the real receiver accepts it', async () => {
    const dead = await publish(1);
    const id = dead[0]?.id ?? '';
    await page.goto(`${base}/subscribers/${refused}/dead-letters?event-id=${id}`);
    await waitFor('the dead letter to be listed', async () => {
      if ((await page.locator(`tr[data-event-id="${id}"]`).count()) === 1) return true;
      await page.reload();
      return undefined;
    });
    await page.goto(`${base}/subscribers/${refused}/dead-letters`);
    await shot('dead-letters');
    await page.goto(`${base}/subscribers/${refused}/dead-letters?event-id=${id}`);
    await page.click(`tr[data-event-id="${id}"] a[href*="/dead-letters/"]`);
    await page.waitForSelector('table#evidence');
    expect(await page.locator('table#evidence').textContent()).toContain('terminal');
    await shot('dead-letter');
    await page.goBack();

    await page.check(`input[name="pick"][value="${id}"]`);
    await page.click('#dry-run');
    await page.waitForSelector('#replay-summary', { timeout: 30_000 });
    expect(await page.locator('#replay-summary').textContent()).toContain('Would replay 1');
    expect(arrivedAt(refusedEndpoint, refused, [id])).toHaveLength(1);

    refusedEndpoint.setBehaviour({ fixedStatus: null });
    await page.goBack();
    await page.check(`input[name="pick"][value="${id}"]`);
    await page.click('#replay');
    await page.waitForSelector('#replay-summary', { timeout: 30_000 });
    expect(await page.locator('#replay-summary').textContent()).toMatch(/^Replayed 1 to /);
    await shot('replay');
    await waitFor('the replayed event accepted at the receiver', async () =>
      accepted(refusedEndpoint, refused, [id]).length === 1 ? true : undefined,
    );

    await page.goto(`${base}/events/${id}`);
    await waitFor('the ledger to say delivered', async () => {
      const state = await page
        .locator(`#ledger tr[data-subscriber="${refused}"] [data-field="state"]`)
        .textContent();
      if (state === 'delivered') return true;
      await page.reload();
      return undefined;
    });
    expect(
      await page.locator(`#ledger tr[data-subscriber="${slow}"] [data-field="state"]`).textContent(),
    ).toBe('delivered');
    const jaeger = page.locator('#traces a, #jaeger-search');
    expect(await jaeger.first().getAttribute('href')).toMatch(new RegExp(`^${endpoints.jaegerQuery}/`));
    await shot('event');
  });

  it('shows the event catalogue with the subscribers of each type', async () => {
    await page.goto(`${base}/catalogue`);
    const row = page.locator('tr[data-type="shipment.updated"]');
    expect(await row.textContent()).toContain(slow);
    expect(await row.textContent()).toContain(refused);
    await shot('catalogue', false);
  });

  it('throttles logins: the 11th of a minute from one address gets 429 and Retry-After, right token or not', async () => {
    // From 127.0.0.2, so the browser's and the other tests' logins (from 127.0.0.1) do not count.
    const from = '127.0.0.2';
    for (let i = 0; i < 10; i++) expect((await loginFrom(from, 'wrong-token-0123456789')).status).toBe(401);
    const throttled = await loginFrom(from, TOKEN);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(throttled.headers['set-cookie']).toBeUndefined();
    await waitFor('the throttle log line', async () =>
      consoleProcess.output().includes('console logins throttled for a client address') ? true : undefined,
    );
    expect(consoleProcess.output()).toContain('"address":"127.0.0.2"');
  });
});

/** A login POST from a source address of the loopback network (node:http binds it; fetch cannot). */
function loginFrom(
  from: string,
  token: string,
): Promise<{ status: number | undefined; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/login`,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode, headers: res.headers });
      },
    );
    req.once('error', reject);
    req.end(new URLSearchParams({ token }).toString());
  });
}
