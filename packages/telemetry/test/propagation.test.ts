import { propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractTraceContext, injectTraceContext } from '../src/propagation.ts';

describe('trace context in Kafka headers', () => {
  beforeAll(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
  afterAll(() => propagation.disable());

  const spanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
  };

  it('writes a W3C traceparent and reads it back from Buffer-valued headers', () => {
    const headers: Record<string, string> = {};
    injectTraceContext(headers, trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(spanContext)));
    expect(headers.traceparent).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');

    // kafkajs delivers header values as Buffers.
    const fromKafka = { traceparent: Buffer.from(headers.traceparent ?? ''), ce_id: Buffer.from('evt_1') };
    const extracted = trace.getSpanContext(extractTraceContext(fromKafka));
    expect(extracted).toMatchObject({ ...spanContext, isRemote: true });
  });

  it('yields the root context for records without trace headers', () => {
    expect(trace.getSpanContext(extractTraceContext({ ce_id: Buffer.from('x') }))).toBeUndefined();
    expect(trace.getSpanContext(extractTraceContext(undefined))).toBeUndefined();
  });
});
