import { request } from 'node:http';
import { KafkaReadError } from '@hookstream/kafka';
import { ReplayError } from '@hookstream/replay';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleServer, SESSION_COOKIE } from '../src/index.ts';
import { FakeBackend, overview, TOKEN } from './fake-backend.ts';

let backend: FakeBackend;
let server: ConsoleServer;
let base: string;
let cookie: string;
let csrf: string;

function form(fields: Record<string, string | string[]>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) p.append(k, one);
  return p.toString();
}

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie, ...headers },
    body,
  });
}

function get(path: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, { redirect: 'manual', headers: { cookie, ...headers } });
}

async function login(): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: form({ token: TOKEN }),
  });
  expect(res.status).toBe(303);
  const set = res.headers.get('set-cookie') ?? '';
  const c = set.split(';')[0] ?? '';
  const page = await (await fetch(`${base}/`, { headers: { cookie: c } })).text();
  return { cookie: c, csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '' };
}

beforeAll(async () => {
  backend = new FakeBackend();
  server = new ConsoleServer({ backend, tokens: [TOKEN], host: '127.0.0.1', port: 0 });
  base = await server.start();
  ({ cookie, csrf } = await login());
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  backend.subscribers = [overview('orders')];
});

describe('the console server', () => {
  it('answers 401 with the login form to a browser without a session, and to a POST', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('name="token"');
    const action = await fetch(`${base}/subscribers/orders/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: form({ csrf }),
    });
    expect(action.status).toBe(401);
  });

  it('sets an HttpOnly, SameSite=Strict session cookie on login, and refuses a wrong token', async () => {
    const res = await fetch(`${base}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: form({ token: TOKEN }),
    });
    const set = res.headers.get('set-cookie') ?? '';
    expect(set).toMatch(
      new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/`),
    );
    expect(set).not.toContain(TOKEN);
    const wrong = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
      body: form({ token: `${TOKEN}x` }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a POST without the CSRF token, with another one, or from another origin', async () => {
    expect((await post('/subscribers/orders/pause', form({}))).status).toBe(403);
    expect((await post('/subscribers/orders/pause', form({ csrf: `${csrf}x` }))).status).toBe(403);
    expect(
      (await post('/subscribers/orders/pause', form({ csrf }), { origin: 'http://evil.test' })).status,
    ).toBe(403);
    const noOrigin = await fetch(`${base}/subscribers/orders/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: form({ csrf }),
    });
    expect(noOrigin.status).toBe(403);
    // A login from another site's page (login CSRF) is refused too.
    const foreignLogin = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.test' },
      body: form({ token: TOKEN }),
    });
    expect(foreignLogin.status).toBe(403);
    expect(backend.changes).toEqual([]);
  });

  it('refuses a Host it does not serve (DNS rebinding)', async () => {
    // fetch will not send another Host: node:http will.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${base}/`, { headers: { host: 'evil.test:8088', cookie } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('pauses with a valid CSRF token, as the session’s operator, then sends the browser back', async () => {
    const res = await post('/subscribers/orders/pause', form({ csrf, reason: 'deploy' }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/subscribers/orders');
    expect(backend.changes.at(-1)).toEqual({
      action: 'pause',
      name: 'orders',
      by: 'console-token-1',
      reason: 'deploy',
    });
  });

  it('says so when a resume happened but its notice could not be published', async () => {
    backend.noticeError = 'not authorized to write hookstream.notices.events';
    try {
      const res = await post('/subscribers/orders/resume', form({ csrf }));
      expect(res.status).toBe(500);
      const page = await res.text();
      expect(page).toContain('NOTICE_NOT_PUBLISHED');
      expect(page).toContain(
        'orders is active again, but its subscriber.enabled notice could not be published',
      );
    } finally {
      backend.noticeError = null;
    }
  });

  it('escapes what it shows and sends a no-script CSP on every page', async () => {
    backend.subscribers = [
      overview('orders', { failedOn: [{ instance: 'p1', error: '<script>alert(1)</script>' }] }),
    ];
    const res = await get('/');
    const page = await res.text();
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    // no-referrer would make Chromium send Origin: null on the console's own forms.
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toMatch(/<meta http-equiv="refresh" content="5">/);
    expect(page).toContain('data-field="lag">7<');
    expect(page).toContain('1m 5s');
  });

  it('narrows the subscribers to those whose name contains the query', async () => {
    backend.subscribers = [overview('orders'), overview('billing')];
    const page = await (await get('/?q=bill')).text();
    expect(page).toContain('data-subscriber="billing"');
    expect(page).not.toContain('data-subscriber="orders"');
    expect(page).toContain('1 of 2 subscriber(s)');
  });

  it('shows the deliveries and success ratio of the last minutes, – where nothing reports them', async () => {
    backend.subscribers = [overview('orders'), overview('idle', { recent: null })];
    const page = await (await get('/')).text();
    expect(page).toMatch(
      /data-subscriber="orders"[\s\S]*?data-field="delivered">6<[\s\S]*?data-field="success">75\.0 %</,
    );
    expect(page).toMatch(
      /data-subscriber="idle"[\s\S]*?data-field="delivered">–<[\s\S]*?data-field="success">–</,
    );
  });

  it('shows a subscriber without its managed secret, URL credentials or header values', async () => {
    const page = await (await get('/subscribers/orders')).text();
    const r = backend.records.get('orders');
    if (r?.secret === undefined || !('managed' in r.secret)) throw new Error('fixture has no managed secret');
    expect(page).toContain('managed (sealed under key');
    expect(page).not.toContain(r.secret.current.ciphertext);
    expect(page).not.toContain('hunter2-password');
    expect(page).not.toContain('ops-user');
    expect(page).not.toContain('query-credential');
    expect(page).toContain('https://orders.example.com/hook?api_key=REDACTED&amp;v=REDACTED');
    expect(page).not.toContain('header-credential');
    expect(page).toContain('&quot;authorization&quot;: &quot;(hidden)&quot;');
    expect(page).toContain('id="pause"');
  });

  it('shows the retention headroom in the list and per partition, unbounded and unmeasured apart', async () => {
    backend.subscribers = [
      overview('orders'),
      overview('forever', { retentionHeadroomSeconds: 'unbounded', retentionHeadroomBasis: null }),
      overview('sized', { retentionHeadroomSeconds: 125, retentionHeadroomBasis: 'bytes' }),
      overview('unknown', { retentionHeadroomSeconds: null, retentionHeadroomBasis: null }),
    ];
    const list = await (await get('/')).text();
    expect(list).toMatch(/data-subscriber="orders"[\s\S]*?data-field="headroom">2h0m</);
    expect(list).toMatch(/data-subscriber="forever"[\s\S]*?data-field="headroom">unbounded</);
    expect(list).toMatch(/data-subscriber="sized"[\s\S]*?data-field="headroom">2m5s \(bytes, 1h rate\)</);
    expect(list).toMatch(/data-subscriber="unknown"[\s\S]*?data-field="headroom">-</);
    const page = await (await get('/subscribers/orders')).text();
    expect(page).toContain('Retention headroom: 1h30m');
    expect(page).toMatch(
      /data-partition="0"[\s\S]*?2026-06-01T10:00:00.000Z[\s\S]*?data-field="headroom">1h30m</,
    );
  });

  it('a page that failed on a passing problem tries again by itself; one that would fail the same does not', async () => {
    const refresh = /<meta http-equiv="refresh" content="(\d+)">/;
    backend.overviewError = new KafkaReadError('KAFKA_UNAVAILABLE', 'no broker answered');
    const away = await get('/');
    expect(away.status).toBe(503);
    expect(refresh.exec(await away.text())?.[1]).toBe('5');
    backend.overviewError = new KafkaReadError('NO_SUCH_TOPIC', 'no topic events');
    const missing = await get('/');
    expect(missing.status).toBe(500);
    expect(await missing.text()).not.toMatch(refresh);
    // And the next look answers as usual.
    expect((await get('/')).status).toBe(200);
  });

  it('answers 404 for an unknown subscriber and 400 for a name that is not one', async () => {
    expect((await get('/subscribers/nobody')).status).toBe(404);
    expect((await get('/subscribers/%3Cscript%3E')).status).toBe(400);
  });

  it('filters dead letters, refuses a bad filter, and shows one letter’s evidence escaped', async () => {
    const list = await (await get('/subscribers/orders/dead-letters?event-id=evt-2')).text();
    expect(list).toContain('1 of 2 dead letter(s) match');
    expect(list).toContain('value="evt-2"');
    const bad = await get('/subscribers/orders/dead-letters?reason=bored');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('is not one of terminal');
    const one = await (await get('/subscribers/orders/dead-letters/0/1')).text();
    expect(one).toContain('&lt;b&gt;down&lt;/b&gt;');
    expect(one).toContain('data-field="tenant">acme<');
    expect(await (await get('/subscribers/orders/dead-letters/0/0')).text()).toContain(
      'data-field="tenant">none<',
    );
    expect((await get('/subscribers/orders/dead-letters/0/9')).status).toBe(404);
  });

  it('replays the picked dead letters in the background and shows the outcome', async () => {
    const res = await post(
      '/subscribers/orders/replay',
      form({ csrf, mode: 'replay', pick: ['evt-1'], reason: 'exhausted' }),
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/replays\/job_/);
    const request = backend.replays.at(-1);
    expect(request?.dryRun).toBe(false);
    expect(request?.selection.eventIds).toEqual(['evt-1']);
    expect(request?.selection.reasons).toEqual(['exhausted']);
    expect(request?.operator).toBe('console-token-1');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const page = await (await get(location)).text();
    expect(page).toContain('Replayed 1 to hookstream.sub.orders.retry.1');
    expect(page).not.toContain('http-equiv="refresh"');
  });

  it('replays under the lease as the console, and shows who holds it when another run does', async () => {
    backend.replayError = new ReplayError(
      'REPLAY_LEASE_HELD',
      'another replay of orders is running: rpl_cli by ops-alice on ops-1 (pid 42, hookstream dlq replay) since …',
    );
    try {
      const res = await post('/subscribers/orders/replay', form({ csrf, mode: 'replay', pick: ['evt-1'] }));
      expect(backend.replays.at(-1)?.tool).toBe('console');
      await new Promise((resolve) => setTimeout(resolve, 10));
      const page = await (await get(res.headers.get('location') ?? '')).text();
      expect(page).toContain('id="replay-state">failed<');
      expect(page).toContain(
        'REPLAY_LEASE_HELD: another replay of orders is running: rpl_cli by ops-alice on ops-1 (pid 42, hookstream dlq replay)',
      );
    } finally {
      backend.replayError = null;
    }
  });

  it('takes a dry run when the dry-run button is pressed', async () => {
    await post('/subscribers/orders/replay', form({ csrf, mode: 'dry-run' }));
    expect(backend.replays.at(-1)?.dryRun).toBe(true);
    expect(backend.replays.at(-1)?.selection.eventIds).toEqual([]);
  });

  it('shows an event’s ledger with its trace links, and the catalogue', async () => {
    const event = await (await get('/events/evt-1')).text();
    expect(event).toContain('href="http://jaeger.test:16686/trace/abc123"');
    expect(event).toContain('data-field="state">delivered<');
    // Judged from the definition: no attempt log time to show.
    expect(event).toContain('its eventTypes do not take order.created (passed, committed 9)');
    expect(event).toContain('<p id="tenant">Tenant: acme</p>');
    expect(event).toContain(
      'by tenant: its tenant does not take the event&#39;s (acme) (passed, committed 9)',
    );
    // Delivered again by a rewind: who and when, escaped as any text.
    expect(event).toContain(
      'at 2026-12-04T10:00:01.000Z, attempt 1, status 204 (sent again by a rewind by alice&lt;ops&gt; at 2026-12-04T10:00:00.000Z)',
    );
    const find = await get('/events?id=evt-1');
    expect(find.headers.get('location')).toBe('/events/evt-1');
    const catalogue = await (await get('/catalogue')).text();
    expect(catalogue).toContain('x.OrderCreated');
    expect(catalogue).toContain('href="/subscribers/orders"');
  });

  it('logs out: the cookie no longer opens a page', async () => {
    const own = await login();
    const res = await fetch(`${base}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie: own.cookie },
      body: form({ csrf: own.csrf }),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await fetch(`${base}/`, { headers: { cookie: own.cookie } })).status).toBe(401);
  });
});
