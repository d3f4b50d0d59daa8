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
