import { createServer, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../src/errors.ts';
import { readBody } from '../src/read-body.ts';

describe('readBody', () => {
  const server = createServer((req, res) => {
    readBody(req, 10).then(
      (body) => res.end(`ok:${body.toString()}`),
      (err: unknown) =>
        res.writeHead(err instanceof HttpError ? err.status : 500, { connection: 'close' }).end(),
    );
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  function post(body: string, chunked: boolean): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      if (!chunked) req.setHeader('content-length', Buffer.byteLength(body));
      req.end(body);
    });
  }

  it('returns a body within the limit', async () => {
    expect(await post('0123456789', false)).toEqual({ status: 200, text: 'ok:0123456789' });
    expect(await post('abc', true)).toEqual({ status: 200, text: 'ok:abc' });
  });

  it('refuses with 413 once the body passes the limit, announced or streamed', async () => {
    expect((await post('0123456789a', false)).status).toBe(413);
    expect((await post('0123456789a', true)).status).toBe(413);
  });
});
