import { Writable } from 'node:stream';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';

function memoryStream() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString('utf8').trim().split('\n'));
      done();
    },
  });
  return { stream, lines };
}

describe('createLogger', () => {
  // The SDK installs a context manager in services; here the test does it.
  beforeAll(() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
  afterAll(() => context.disable());

  it('never writes secrets, tokens, signatures or payloads', () => {
    const { stream, lines } = memoryStream();
    const log = createLogger({ name: 'test', destination: stream });
    log.info(
      {
        event_id: 'evt_1',
        secret: 'whsec_TOPSECRET',
        subscriber: { name: 'billing', secret: 'whsec_ALSO' },
        request: { headers: { authorization: 'Bearer tok_LEAK', 'webhook-signature': 'v1,SIGLEAK' } },
        body: '{"card":"4111"}',
        event: { data: { ssn: '078-05-1120' } },
        token: 'tok_PLAIN',
      },
      'delivered',
    );
    const text = lines.join('\n');
    for (const leak of ['TOPSECRET', 'ALSO', 'tok_LEAK', 'SIGLEAK', '4111', '078-05-1120', 'tok_PLAIN']) {
      expect(text).not.toContain(leak);
    }
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line.event_id).toBe('evt_1');
    expect(line.msg).toBe('delivered');
  });

  it('stamps lines with the active trace and span ids', () => {
    const { stream, lines } = memoryStream();
    const log = createLogger({ name: 'test', destination: stream });
    const spanContext = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
    context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(spanContext)), () => log.info('inside'));
    log.info('outside');
    const [inside, outside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inside).toMatchObject({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) });
    expect(outside?.trace_id).toBeUndefined();
  });
});
