import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';

export interface TracingOptions {
  /** hookstream-ingress, hookstream-pusher, hookstream-replay, … */
  readonly serviceName: string;
  readonly env?: Record<string, string | undefined>;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Exports what is buffered, then stops; call once on shutdown. */
  shutdown(): Promise<void>;
}

/** The local stack's Jaeger; `localhost` could resolve to ::1, where nothing listens. */
const LOCAL_OTLP_TRACES = 'http://127.0.0.1:4318/v1/traces';

/** The OTLP/HTTP traces URL per the OTEL_* variables (the signal-specific one wins). */
export function tracesUrl(env: Record<string, string | undefined>): string {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return LOCAL_OTLP_TRACES;
}

/**
 * Starts OpenTelemetry tracing for one process. Configuration is the standard OTEL_*
 * environment: OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, the sampler
 * (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default parent-based always-on) and
 * OTEL_SDK_DISABLED=true to turn tracing off.
 */
export function startTracing(options: TracingOptions): Tracing {
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED === 'true') return { enabled: false, shutdown: async () => undefined };
  const exporter = new OTLPTraceExporter({ url: tracesUrl(env) });
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    // Batching keeps export off the delivery path; a short delay keeps traces fresh in Jaeger.
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 500, maxQueueSize: 8192 })],
    // Spans are created explicitly where hookstream's semantics are known; no auto-instrumentation.
    instrumentations: [],
  });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}
