import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTarget, ProcessSpan } from '../src/delivery-spans.ts';

const record = {
  topic: 'events',
  partition: 0,
  offset: '7',
  key: 'ship-1',
  headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
};
const options = {
  consumerGroup: 'hookstream.sub.a',
  subscriber: 'a',
  eventId: 'evt_1',
  eventType: 'shipment.updated',
  tier: undefined,
};
const target = httpTarget(new URL('http://127.0.0.1:8080/hooks'));

describe('the HTTP attempt traceparent', () => {
  const propagator = new W3CTraceContextPropagator();
  beforeAll(() => propagation.setGlobalPropagator(propagator));
  afterAll(() => propagation.disable());

  it("is the CLIENT span's context, as the W3C propagator writes it", async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const provider = new TracerProvider({ spanProcessors: [processor] });
    const span = new ProcessSpan(provider.getTracer('t'), record, options);
    const http = span.http('POST', target);
    http.responded(204);
    span.end('delivered');
    await processor.forceFlush();
    const client = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CLIENT);
    if (!client) throw new Error('no CLIENT span');
    const expected: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(client.spanContext())), expected, {
      set: (carrier, key, value) => {
        carrier[key] = value;
      },
    });
    expect(http.traceparent).toBe(expected.traceparent);
    expect(client.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('carries the unsampled flag when the sampler records nothing', () => {
    const provider = new TracerProvider({ sampler: new AlwaysOffSampler() });
    const span = new ProcessSpan(provider.getTracer('t'), { ...record, headers: {} }, options);
    expect(span.http('POST', target).traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });

  it('is undefined without a tracing SDK, so the request carries the record its own', () => {
    propagation.disable();
    try {
      const span = new ProcessSpan(trace.getTracer('noop'), record, options);
      expect(span.http('POST', target).traceparent).toBeUndefined();
    } finally {
      propagation.setGlobalPropagator(propagator);
    }
  });
});

describe("the process span's trace id for log lines", () => {
  beforeAll(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
  afterAll(() => propagation.disable());

  it("stays readable after the span ended, since the record's end logs after ending it", () => {
    const provider = new TracerProvider({});
    const span = new ProcessSpan(provider.getTracer('t'), record, options);
    span.end('retry-scheduled', 'server-error');
    expect(span.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('is undefined when the sampler records nothing', () => {
    const provider = new TracerProvider({ sampler: new AlwaysOffSampler() });
    const span = new ProcessSpan(provider.getTracer('t'), { ...record, headers: {} }, options);
    expect(span.traceId).toBeUndefined();
  });
});

describe("the process span's partition key", () => {
  const keyOf = async (keyInClear: boolean | undefined) => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const provider = new TracerProvider({ spanProcessors: [processor] });
    const span = new ProcessSpan(provider.getTracer('t'), record, { ...options, keyInClear });
    span.send('hookstream.sub.a.retry.1').end('settled');
    span.end('retry-scheduled');
    await processor.forceFlush();
    return exporter.getFinishedSpans().map((s) => s.attributes['messaging.kafka.message.key']);
  };

  it('is a digest by default on the process and send spans, the key itself only when the subscriber opts in', async () => {
    expect(await keyOf(undefined)).toEqual(['sha256:8ed87faf0f2d0f17', 'sha256:8ed87faf0f2d0f17']);
    expect(await keyOf(true)).toEqual(['ship-1', 'ship-1']);
  });
});

describe("an endpoint's span attributes", () => {
  it('carry url.full redacted by the one rule: no user info, no query values', () => {
    const attributes = httpTarget(new URL('https://ops:pass@hooks.example.com/in?token=abc&v=2')).attributes;
    expect(attributes['url.full']).toBe('https://hooks.example.com/in?token=REDACTED&v=REDACTED');
    expect(attributes['server.address']).toBe('hooks.example.com');
    expect(attributes['server.port']).toBe(443);
  });
});
