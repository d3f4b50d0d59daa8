import { ATTR, extractTraceContext, injectTraceContext, startTracing } from '@hookstream/telemetry';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { TRACING_BACKEND_WAIT_MS, tracingBackend } from '../support/tracing-backend.ts';
import { waitFor } from '../support/wait.ts';

// Reads traces: waits for Jaeger, which may still be building on a fresh machine.
beforeAll(tracingBackend, TRACING_BACKEND_WAIT_MS);

interface JaegerTrace {
  traceID: string;
  spans: { spanID: string; operationName: string; references: { refType: string; spanID: string }[] }[];
}

describe('startTracing', () => {
  it('exports spans to Jaeger, and a context carried in Kafka headers joins the producer trace', async () => {
    const service = uniqueName('hookstream-telemetry-test');
    const tracing = await startTracing({
      serviceName: service,
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoints.otlpTraces },
    });
    const tracer = trace.getTracer('telemetry-test');

    const headers: Record<string, string> = {};
    const publish = tracer.startSpan('publish events', { kind: SpanKind.PRODUCER });
    context.with(trace.setSpan(context.active(), publish), () => injectTraceContext(headers));
    publish.end();

    // The consumer side sees only the record's headers, as Buffers.
    const parent = extractTraceContext({ traceparent: Buffer.from(headers.traceparent ?? '') });
    const process = tracer.startSpan(
      'process events',
      { kind: SpanKind.CONSUMER, attributes: { [ATTR.messagingMessageId]: 'evt_1' } },
      parent,
    );
    process.end();
    await tracing.shutdown();

    const traceId = publish.spanContext().traceId;
    const found = await waitFor('both spans in Jaeger', async () => {
      const res = await fetch(`${endpoints.jaegerQuery}/api/traces/${traceId}`);
      if (!res.ok) return undefined;
      const body = (await res.json()) as { data: JaegerTrace[] };
      const t = body.data[0];
      return t && t.spans.length === 2 ? t : undefined;
    });
    const byName = new Map(found.spans.map((s) => [s.operationName, s]));
    expect(byName.get('process events')?.references).toContainEqual(
      expect.objectContaining({ refType: 'CHILD_OF', spanID: publish.spanContext().spanId }),
    );
  });
});
