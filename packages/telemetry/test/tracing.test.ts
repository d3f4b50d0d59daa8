import { describe, expect, it } from 'vitest';
import { tracesUrl } from '../src/tracing.ts';

describe('tracesUrl', () => {
  it('defaults to the local Jaeger on 127.0.0.1', () => {
    expect(tracesUrl({})).toBe('http://127.0.0.1:4318/v1/traces');
  });

  it('appends the traces path to the general endpoint', () => {
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
  });

  it('takes the signal-specific endpoint as it is', () => {
    expect(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://jaeger:4318/custom',
      }),
    ).toBe('http://jaeger:4318/custom');
  });
});

describe('startTracing and the delivery spans', () => {
  // Reads the SDK tracer's resource and scope and recognises the API's proxy tracer: an SDK or
  // API upgrade that moves them would silently leave the pusher on the dearer SDK spans.
  it('installs the lite tracer for the delivery tracer, and removes it at shutdown', async () => {
    const { deliveryTracer } = await import('../src/delivery-spans.ts');
    const { liteTracerFor } = await import('../src/lite-tracer.ts');
    const { startTracing } = await import('../src/tracing.ts');
    const early = deliveryTracer();
    const saved = process.env.OTEL_PROPAGATORS;
    delete process.env.OTEL_PROPAGATORS;
    // Nothing is exported: no span is ended.
    const tracing = await startTracing({
      serviceName: 'test',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    });
    try {
      expect(liteTracerFor(deliveryTracer())).toBeDefined();
      expect(liteTracerFor(early)).toBeDefined();
    } finally {
      await tracing.shutdown();
      if (saved !== undefined) process.env.OTEL_PROPAGATORS = saved;
    }
    expect(liteTracerFor(deliveryTracer())).toBeUndefined();
    // Loads the OpenTelemetry SDK inside the test: about 4 s on a busy machine, near vitest's 5 s.
  }, 60_000);
});
