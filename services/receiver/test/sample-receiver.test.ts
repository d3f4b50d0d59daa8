import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { SampleReceiver } from '../src/sample-receiver.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const signer = new Webhook(secret);

function post(url: string, eventId: string, sign = true): Promise<Response> {
  const body = JSON.stringify({ event_id: eventId, subscription_id: 'sub-a', n: 1 });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (sign) {
    const at = new Date();
    headers['webhook-id'] = eventId;
    headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
    headers['webhook-signature'] = signer.sign(eventId, at, body);
  }
  return fetch(url, { method: 'POST', body, headers });
}

/** A signed batch request (`{ "events": [ … ] }`) under its own webhook-id. */
function postBatch(url: string, batchId: string, eventIds: readonly string[]): Promise<Response> {
  const body = JSON.stringify({ events: eventIds.map((id) => ({ event_id: id, subscription_id: 'sub-a' })) });
  const at = new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': batchId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signer.sign(batchId, at, body),
  };
  return fetch(url, { method: 'POST', body, headers });
}

describe('SampleReceiver', () => {
  let receiver: SampleReceiver;
  afterEach(() => receiver.close());

  it('takes a batch request: one arrival and one effect per event, naming the batch', async () => {
    receiver = new SampleReceiver({
      secret,
      record: true,
      behaviour: { failTimes: 1, failEventIds: ['e2'] },
    });
    const url = await receiver.listen();
    // e2 fails its first request: the whole batch is answered 500, each event counted once.
    expect((await postBatch(url, 'batch_1', ['e1', 'e2'])).status).toBe(500);
    expect((await postBatch(url, 'batch_2', ['e1', 'e2', 'e3'])).status).toBe(204);
    expect(receiver.stats()).toMatchObject({ received: 2, accepted: 3, failed: 1 });
    expect(receiver.arrivals.map((a) => [a.eventId, a.status, a.batchId, a.batchSize])).toEqual([
      ['e1', 500, 'batch_1', 2],
      ['e2', 500, 'batch_1', 2],
      ['e1', 204, 'batch_2', 3],
      ['e2', 204, 'batch_2', 3],
      ['e3', 204, 'batch_2', 3],
    ]);
  });

  it('accepts signed requests with 204 and counts one effect per event', async () => {
    receiver = new SampleReceiver({ secret, record: true });
    const url = await receiver.listen();
    expect((await post(url, 'e1')).status).toBe(204);
    expect((await post(url, 'e1')).status).toBe(204);
    expect((await post(url, 'e2')).status).toBe(204);
    expect(receiver.stats()).toMatchObject({ received: 3, accepted: 2, duplicates: 1 });
    expect(receiver.hasAccepted('sub-a', 'e1')).toBe(true);
    expect(receiver.arrivals[0]?.body).toMatchObject({ event_id: 'e1', n: 1 });
  });

  it('answers GET /healthz on any bound address without counting it as a delivery', async () => {
    receiver = new SampleReceiver({ secret });
    await receiver.listen(0, '0.0.0.0');
    const res = await fetch(`http://127.0.0.1:${receiver.port}/healthz`);
    expect([res.status, await res.json()]).toEqual([200, { status: 'ok' }]);
    expect(receiver.stats().received).toBe(0);
  });

  it('says over HTTP whether an event was accepted', async () => {
    receiver = new SampleReceiver({ secret });
    const url = await receiver.listen();
    await post(url, 'evt:1');
    const yes = await fetch(`${url}/accepted/sub-a/${encodeURIComponent('evt:1')}`);
    expect([yes.status, await yes.json()]).toEqual([
      200,
      { subscription_id: 'sub-a', event_id: 'evt:1', accepted: true },
    ]);
    expect((await fetch(`${url}/accepted/sub-a/evt-2`)).status).toBe(404);
    expect((await fetch(`${url}/accepted/sub-b/evt:1`)).status).toBe(404);
  });

  it('answers 400 to a malformed path escape and keeps serving', async () => {
    receiver = new SampleReceiver({ secret });
    const url = await receiver.listen();
    for (const path of ['/accepted/%ZZ/x', '/accepted/sub-a/%E0%A4%A', '/accepted/%/%']) {
      const res = await fetch(`${url}${path}`);
      expect([path, res.status]).toEqual([path, 400]);
    }
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await post(url, 'e1')).status).toBe(204);
  });

  it('remembers at most maxTracked events, forgetting the oldest, while counting all of them', async () => {
    receiver = new SampleReceiver({ secret, maxTracked: 2, behaviour: { failTimes: 1, failStatus: 503 } });
    const url = await receiver.listen();
    for (const id of ['e1', 'e2', 'e3']) {
      expect((await post(url, id)).status).toBe(503);
      expect((await post(url, id)).status).toBe(204);
    }
    expect(receiver.hasAccepted('sub-a', 'e1')).toBe(false);
    expect(receiver.hasAccepted('sub-a', 'e2')).toBe(true);
    expect(receiver.hasAccepted('sub-a', 'e3')).toBe(true);
    // e1's attempt count was forgotten too: it fails once more, as a new event would.
    expect((await post(url, 'e1')).status).toBe(503);
    expect(receiver.stats()).toMatchObject({ received: 7, accepted: 3 });
  });

  it('refuses unbounded behaviour numbers through POST /control', async () => {
    receiver = new SampleReceiver({ secret });
    const url = await receiver.listen();
    for (const change of [{ delayMs: 2 ** 31 }, { retryAfterSeconds: 1e9 }, { failTimes: 1e9 }]) {
      const res = await fetch(`${url}/control`, { method: 'POST', body: JSON.stringify(change) });
      expect([change, res.status]).toEqual([change, 400]);
    }
  });

  it('echoes the request headers as its body when asked, as some endpoints do', async () => {
    receiver = new SampleReceiver({ secret, behaviour: { echoHeaders: true, fixedStatus: 500 } });
    const url = await receiver.listen();
    const res = await post(url, 'e1');
    expect(res.status).toBe(500);
    const echoed = (await res.json()) as Record<string, string>;
    expect(echoed['webhook-id']).toBeDefined();
    expect(echoed['webhook-signature']).toMatch(/^v1,/);
  });

  it('answers 401 to an unsigned request', async () => {
    receiver = new SampleReceiver({ secret });
    const url = await receiver.listen();
    expect((await post(url, 'e1', false)).status).toBe(401);
    expect(receiver.stats()).toMatchObject({ accepted: 0, badSignatures: 1 });
  });

  it('fails the first N attempts of each event, then accepts', async () => {
    receiver = new SampleReceiver({ secret, behaviour: { failTimes: 2, failStatus: 503 } });
    const url = await receiver.listen();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(url, 'e1')).status);
    expect(statuses).toEqual([503, 503, 204]);
  });

  it('fails only the events failEventIds names, when it names any', async () => {
    receiver = new SampleReceiver({
      secret,
      behaviour: { failTimes: 1, failStatus: 503, failEventIds: ['e1'] },
    });
    const url = await receiver.listen();
    const statuses = [];
    for (const id of ['e2', 'e1', 'e1']) statuses.push((await post(url, id)).status);
    expect(statuses).toEqual([204, 503, 204]);
  });

  it('sends Retry-After with a failStatus of 429', async () => {
    receiver = new SampleReceiver({
      secret,
      behaviour: { failTimes: 1, failStatus: 429, retryAfterSeconds: 2 },
    });
    const url = await receiver.listen();
    const first = await post(url, 'e1');
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '2']);
    expect((await post(url, 'e1')).status).toBe(204);
  });

  it('answers 429 with Retry-After above its rate', async () => {
    // A clock that stands still: three requests over real HTTP are in one second however long a
    // busy machine takes to send them.
    receiver = new SampleReceiver({
      secret,
      behaviour: { rateLimitPerSecond: 2, retryAfterSeconds: 3 },
      now: () => 1_000_000,
    });
    const url = await receiver.listen();
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post(url, `e${i}`));
    expect(answers.map((r) => r.status)).toEqual([204, 204, 429]);
    expect(answers[2]?.headers.get('retry-after')).toBe('3');
  });

  it('changes behaviour through POST /control and reports through GET /stats', async () => {
    receiver = new SampleReceiver({ secret });
    const url = await receiver.listen();
    const control = await fetch(`${url}/control`, {
      method: 'POST',
      body: JSON.stringify({ fixedStatus: 400 }),
    });
    expect(control.status).toBe(200);
    expect((await post(url, 'e1')).status).toBe(400);
    await fetch(`${url}/control`, {
      method: 'POST',
      body: JSON.stringify({ fixedStatus: null, delayMs: 50 }),
    });
    expect((await post(url, 'e1')).status).toBe(204);
    const stats = (await (await fetch(`${url}/stats`)).json()) as { accepted: number; perSecond: number[] };
    expect(stats.accepted).toBe(1);
    expect(stats.perSecond.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('can stop answering and come back on the same port', async () => {
    receiver = new SampleReceiver({ secret });
    const url = await receiver.listen();
    await receiver.close();
    await expect(post(url, 'e1')).rejects.toThrow();
    await receiver.listen(receiver.port);
    expect((await post(url, 'e1')).status).toBe(204);
  });
});
