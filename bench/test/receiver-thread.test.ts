import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { signPayload } from '@hookstream/delivery';
import { afterEach, describe, expect, it } from 'vitest';
import { epochNow } from '../src/open-loop.ts';
import { type ReceiverThread, startReceiverThread } from '../src/receiver-thread.ts';

const key = randomBytes(24);
const secret = `whsec_${key.toString('base64')}`;

/** A request signed as the pusher signs (Standard Webhooks) with `signingKey`. */
function post(url: string, eventId: string, signingKey: Buffer): Promise<Response> {
  const body = JSON.stringify({ event_id: eventId, subscription_id: 'sub-a' });
  const at = Math.floor(Date.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(at),
    'webhook-signature': signPayload(signingKey, eventId, at, body),
  };
  return fetch(url, { method: 'POST', body, headers });
}

async function arrivalsOf(thread: ReceiverThread, count: number): Promise<ReceiverThread['arrivals']> {
  const deadline = Date.now() + 5000;
  while (thread.arrivals.length < count && Date.now() < deadline) await sleep(5);
  return thread.arrivals;
}

describe('startReceiverThread', () => {
  let thread: ReceiverThread | undefined;
  afterEach(async () => {
    await thread?.close();
    thread = undefined;
  });

  it("mirrors the receiver's arrivals, stamped on this thread's clock, a wrongly signed request without an event id", async () => {
    thread = await startReceiverThread(secret);
    const before = epochNow();
    expect((await post(thread.url, 'evt_1', key)).status).toBe(204);
    expect((await post(thread.url, 'evt_2', randomBytes(24))).status).toBe(401);
    const after = epochNow();
    const arrivals = await arrivalsOf(thread, 2);
    expect(arrivals.map((a) => [a.eventId, a.status])).toEqual([
      ['evt_1', 204],
      [null, 401],
    ]);
    for (const a of arrivals) {
      expect(a.atMs).toBeGreaterThanOrEqual(before);
      expect(a.atMs).toBeLessThanOrEqual(after);
    }
  });
});
