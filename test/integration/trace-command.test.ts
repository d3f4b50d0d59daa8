import { randomUUID } from 'node:crypto';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { endpoints } from '../support/stack.ts';
import { TRACING_BACKEND_WAIT_MS, tracingBackend } from '../support/tracing-backend.ts';
import { waitFor } from '../support/wait.ts';

// Reads traces: waits for Jaeger, which may still be building on a fresh machine.
beforeAll(tracingBackend, TRACING_BACKEND_WAIT_MS);

function provider(service: string): TracerProvider {
  return new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [
      new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: endpoints.otlpTraces }) }),
    ],
  });
}

describe('hookstream trace', () => {
  it("prints an event's spans across services as one timeline, found by event id", async () => {
    const eventId = `evt_${randomUUID()}`;
    const ingress = provider('hookstream-ingress');
    const pusher = provider('hookstream-pusher');
    // Explicit start times, as in a real run: the attempts come well after the publish, so the
    // order does not hang on sub-millisecond clock readings of two tracer providers.
    const t0 = Date.now() - 1000;
    const publish = ingress.getTracer('t').startSpan('publish events', {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.message.id': eventId },
      startTime: t0,
    });
    const parent = trace.setSpan(context.active(), publish);
    for (const [attempt, outcome] of [
      [1, 'retry'],
      [2, 'ack'],
    ] as const) {
      pusher
        .getTracer('t')
        .startSpan(
          'process events',
          {
            kind: SpanKind.CONSUMER,
            attributes: {
              'messaging.message.id': eventId,
              'hookstream.subscriber': 'billing',
              'hookstream.attempt': attempt,
              'hookstream.outcome': outcome,
            },
            startTime: t0 + 100 * attempt,
          },
          parent,
        )
        .end(t0 + 100 * attempt + 20);
    }
    publish.end(t0 + 10);
    await Promise.all([ingress.shutdown(), pusher.shutdown()]);

    const result = await waitFor('the trace to be found by event id', async () => {
      const run = await runCli(['trace', eventId, '--json', '--jaeger', endpoints.jaegerQuery], process.env);
      if (run.code !== 0) return undefined;
      const out = JSON.parse(run.stdout) as { traceIds: string[]; timeline: { operation: string }[] };
      return out.timeline.length === 3 ? out : undefined;
    });
    expect(result.traceIds).toEqual([publish.spanContext().traceId]);
    expect(result.timeline).toEqual([
      expect.objectContaining({ service: 'hookstream-ingress', operation: 'publish events' }),
      expect.objectContaining({
        service: 'hookstream-pusher',
        attempt: 1,
        outcome: 'retry',
        subscriber: 'billing',
      }),
      expect.objectContaining({ service: 'hookstream-pusher', attempt: 2, outcome: 'ack' }),
    ]);

    const table = await runCli(['trace', eventId, '--jaeger', endpoints.jaegerQuery], process.env);
    expect(table.stdout).toContain(`trace ${publish.spanContext().traceId}`);
  });

  it('exits 1 and says so when no trace has the event', async () => {
    const run = await runCli(
      ['trace', `evt_${randomUUID()}`, '--jaeger', endpoints.jaegerQuery],
      process.env,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no trace');
  });
});
