import { loadEventCatalog } from '@hookstream/contracts';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareEvent } from '../src/prepare-event.ts';
import { endPublishSpan, publishParent, startPublishSpan } from '../src/publish-span.ts';
import { isTraceparent } from '../src/traceparent.ts';

const REQUEST = {
  id: 'evt_1',
  key: 'tenant-1',
  type: 'key.revoked',
  data: { tenant_id: 'tenant-1', key_id: 'k' },
};
const event = prepareEvent(loadEventCatalog(), REQUEST);
const callers = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('publish spans without a tracing SDK', () => {
  it("keeps the caller's traceparent, or writes a fresh valid one", () => {
    const tracer = trace.getTracer('test');
    const withCaller = startPublishSpan(tracer, 'events', event, publishParent(callers), callers);
    expect(withCaller.traceparent).toBe(callers);
    const fresh = startPublishSpan(tracer, 'events', event, publishParent(undefined), undefined);
    expect(isTraceparent(fresh.traceparent)).toBe(true);
    expect(fresh.span.span.isRecording()).toBe(false);
  });
});

describe('publish spans with a tracing SDK', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('test');
  beforeAll(() => {
    // What startTracing registers: W3C propagation and an async-hooks context manager.
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(async () => {
    propagation.disable();
    context.disable();
    await provider.shutdown();
  });

  it("is a PRODUCER child of the caller's traceparent, and the record carries the span's own context", () => {
    const { span, traceparent } = startPublishSpan(tracer, 'events', event, publishParent(callers), callers);
    endPublishSpan(span, { partition: 2, offset: '41' });
    const [finished] = exporter.getFinishedSpans();
    expect(finished?.name).toBe('send events');
    expect(finished?.kind).toBe(SpanKind.PRODUCER);
    expect(finished?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(traceparent).toBe(`00-0af7651916cd43dd8448eb211c80319c-${span.span.spanContext().spanId}-01`);
    expect(finished?.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'events',
      'messaging.message.id': 'evt_1',
      'messaging.kafka.message.key': 'sha256:0a96abb33b07ff0e',
      'hookstream.event.type': 'key.revoked',
      'messaging.destination.partition.id': '2',
      'messaging.kafka.offset': 41,
    });
  });

  it("names a tenant's event's tenant (hookstream.tenant), and no tenant for an event without one", () => {
    exporter.reset();
    const acme = prepareEvent(loadEventCatalog(), { ...REQUEST, id: 'evt_2' }, undefined, 'events', 'acme');
    expect(acme.tenant).toBe('acme');
    endPublishSpan(startPublishSpan(tracer, 'events', acme, publishParent(callers), callers).span, {
      partition: 0,
      offset: '1',
    });
    endPublishSpan(startPublishSpan(tracer, 'events', event, publishParent(callers), callers).span, {
      partition: 0,
      offset: '2',
    });
    expect(exporter.getFinishedSpans().map((s) => s.attributes['hookstream.tenant'])).toEqual([
      'acme',
      undefined,
    ]);
  });

  it('prefers the active span (the HTTP request) over the traceparent argument as parent', () => {
    const server = tracer.startSpan('POST /v1/events', { kind: SpanKind.SERVER });
    const parent = context.with(trace.setSpan(context.active(), server), () => publishParent(callers));
    expect(trace.getSpanContext(parent)?.spanId).toBe(server.spanContext().spanId);
    server.end();
  });
});
