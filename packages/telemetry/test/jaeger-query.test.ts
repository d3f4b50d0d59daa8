import { describe, expect, it } from 'vitest';
import { findEventTraces, type JaegerTrace, traceTimeline } from '../src/jaeger-query.ts';

const trace: JaegerTrace = {
  traceID: 't1',
  processes: { p1: { serviceName: 'hookstream-ingress' }, p2: { serviceName: 'hookstream-pusher' } },
  spans: [
    {
      traceID: 't1',
      spanID: 's3',
      operationName: 'process events',
      startTime: 1_000_250_000,
      duration: 40_000,
      processID: 'p2',
      references: [{ refType: 'CHILD_OF', spanID: 's1' }],
      tags: [
        { key: 'hookstream.subscriber', value: 'billing' },
        { key: 'hookstream.attempt', value: 2 },
        { key: 'hookstream.outcome', value: 'ack' },
        { key: 'http.response.status_code', value: 204 },
      ],
    },
    {
      traceID: 't1',
      spanID: 's1',
      operationName: 'publish events',
      startTime: 1_000_000_000,
      duration: 3_000,
      processID: 'p1',
      references: [],
      tags: [],
    },
  ],
};

describe('traceTimeline', () => {
  it('orders spans by start and reads hookstream attributes', () => {
    expect(traceTimeline([trace])).toEqual([
      { traceId: 't1', atMs: 0, durationMs: 3, service: 'hookstream-ingress', operation: 'publish events' },
      {
        traceId: 't1',
        atMs: 250,
        durationMs: 40,
        service: 'hookstream-pusher',
        operation: 'process events',
        subscriber: 'billing',
        attempt: 2,
        outcome: 'ack',
        httpStatus: 204,
      },
    ]);
  });

  it('is empty for no traces', () => {
    expect(traceTimeline([])).toEqual([]);
  });
});

describe('passwords are not echoed: findEventTraces (--jaeger, JAEGER_QUERY_URL)', () => {
  it('refuses a query URL with user info without quoting it, where fetch would quote it whole', async () => {
    const err = await findEventTraces('http://ops:s3cret@127.0.0.1:1', 'evt-1').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_JAEGER_URL', canRetry: false });
    expect((err as Error).message).toContain('http://REDACTED@127.0.0.1:1');
    expect((err as Error).message).not.toContain('s3cret');
  });

  it('names an unreachable Jaeger without its query values, worth retrying', async () => {
    const err = await findEventTraces('http://127.0.0.1:1/?key=s3cret', 'evt-1').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'JAEGER_UNREACHABLE', canRetry: true });
    expect((err as Error).message).toMatch(/^Jaeger at http:\/\/127\.0\.0\.1:1\/\?key=REDACTED: /);
    expect((err as Error).message).not.toContain('s3cret');
  });
});
