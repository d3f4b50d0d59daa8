import { connect, type Socket } from 'node:net';
import type { RunningIngress } from '@hookstream/ingress';
import { afterEach, describe, expect, it } from 'vitest';
import { post, startTestIngress, TOKENS } from '../support/ingress.ts';
import { uniqueName } from '../support/names.ts';
import { endOffsetTotal } from '../support/topic.ts';
import { waitFor } from '../support/wait.ts';

/** A raw connection to the ingress: what it received, and whether the server closed it. */
async function rawConnection(
  url: string,
): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((ok, fail) => socket.once('connect', ok).once('error', fail));
  let received = '';
  let closed = false;
  socket.on('data', (c) => {
    received += c.toString('latin1');
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
  });
  return { socket, received: () => received, closed: () => closed };
}

describe('ingress HTTP limits', () => {
  let ingress: RunningIngress | undefined;
  const timers: NodeJS.Timeout[] = [];
  afterEach(async () => {
    for (const t of timers.splice(0)) clearInterval(t);
    await ingress?.close();
    ingress = undefined;
  });

  it('cuts off a client that sends its body one byte a second, writing nothing', async () => {
    const topic = uniqueName('ingress-slow-body');
    ingress = await startTestIngress(topic, {
      INGRESS_HEADERS_TIMEOUT_MS: '1000',
      INGRESS_REQUEST_TIMEOUT_MS: '2000',
    });
    const conn = await rawConnection(ingress.url);
    const body = JSON.stringify({ type: 'key.revoked', data: { tenant_id: 't', key_id: 'k' } });
    conn.socket.write(
      `POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.all}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let sent = 0;
    timers.push(
      setInterval(() => {
        if (!conn.closed() && sent < body.length) conn.socket.write(body[sent++] ?? '');
      }, 1000),
    );
    // The body would take ~60 s; the request timeout ends it after ~2 s.
    await waitFor('the server to close the slow connection', async () => (conn.closed() ? true : undefined), {
      timeoutMs: 15_000,
    });
    expect(sent).toBeLessThan(body.length);
    expect(conn.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(await endOffsetTotal(topic)).toBe(0);
  });

  it('cuts off a client that sends its headers one byte a second', async () => {
    ingress = await startTestIngress(uniqueName('ingress-slow-headers'), {
      INGRESS_HEADERS_TIMEOUT_MS: '1000',
      INGRESS_REQUEST_TIMEOUT_MS: '2000',
    });
    const conn = await rawConnection(ingress.url);
    const head = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n`;
    let sent = 0;
    conn.socket.write(head[sent++] ?? '');
    timers.push(
      setInterval(() => {
        if (!conn.closed() && sent < head.length) conn.socket.write(head[sent++] ?? '');
      }, 1000),
    );
    await waitFor('the server to close the slow connection', async () => (conn.closed() ? true : undefined), {
      timeoutMs: 15_000,
    });
    expect(sent).toBeLessThan(head.length);
  });

  it('closes connections beyond INGRESS_MAX_CONNECTIONS and serves again once they are gone', async () => {
    ingress = await startTestIngress(uniqueName('ingress-max-conn'), { INGRESS_MAX_CONNECTIONS: '2' });
    const held = [await rawConnection(ingress.url), await rawConnection(ingress.url)];
    const extra = await rawConnection(ingress.url);
    await waitFor('the connection beyond the cap to be closed', async () =>
      extra.closed() ? true : undefined,
    );
    expect(held.map((c) => c.closed())).toEqual([false, false]);
    for (const c of held) c.socket.destroy();
    await waitFor('the ingress to serve again', async () =>
      fetch(`${ingress?.url}/healthz`).then(
        (r) => (r.ok ? true : undefined),
        () => undefined,
      ),
    );
  });

  it('answers 503 queue_full with Retry-After when more records await acks than the queue holds', async () => {
    const topic = uniqueName('ingress-queue-full');
    ingress = await startTestIngress(topic, { INGRESS_QUEUE_MAX_RECORDS: '10', INGRESS_RETRY_AFTER_S: '3' });
    const url = `${ingress.url}/v1/events/batch`;
    // Each batch fills the queue alone, so any two that overlap cannot both be held.
    const batch = (b: number) => ({
      events: Array.from({ length: 10 }, (_, i) => ({
        type: 'key.revoked',
        data: { tenant_id: `t${b}`, key_id: `k${i}` },
      })),
    });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, b) => post(url, batch(b))));
    const full = answers.filter((a) => a.status === 503);
    const accepted = answers.filter((a) => a.status === 202);
    expect(full.length + accepted.length).toBe(answers.length);
    expect(full.length).toBeGreaterThan(0);
    for (const a of full) {
      expect(a.headers.get('retry-after')).toBe('3');
      expect(a.body).toMatchObject({ error: { code: 'queue_full' } });
    }
    // Refused batches wrote nothing; accepted ones everything.
    expect(await endOffsetTotal(topic)).toBe(accepted.length * 10);
  });
});
