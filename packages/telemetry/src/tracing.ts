import { context, logs, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as OTLPJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { OtlpProtobufSpanProcessor } from './otlp-span-processor.ts';

export interface TracingOptions {
  /** hookstream-ingress, hookstream-pusher, hookstream-replay, … */
  readonly serviceName: string;
  readonly env?: Record<string, string | undefined>;
  /**
   * Share of new traces recorded (0..1), overriding OTEL_TRACES_SAMPLER; continued traces
   * follow their parent's decision. For measurements that must not depend on the environment.
   */
  readonly sampleRatio?: number;
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
 * (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG; default parent-based always-on), the encoding
 * (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL: http/protobuf by default, or http/json) and
 * OTEL_SDK_DISABLED=true to turn tracing off.
 */
export function startTracing(options: TracingOptions): Tracing {
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED === 'true') return { enabled: false, shutdown: async () => undefined };
  // OTLP's default encoding is protobuf, which also costs the exporting process less than JSON;
  // OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL=http/json switches to JSON.
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  // Batching keeps export off the delivery path; a short delay keeps traces fresh in Jaeger;
  // large batches mean fewer requests (a busy pusher ends thousands of spans a second).
  const batching = { scheduledDelayMillis: 500, maxQueueSize: 8192, maxExportBatchSize: 1024 };
  const url = tracesUrl(env);
  // Protobuf: hookstream's own processor, which encodes each span as it ends (the same bytes as
  // the SDK's exporter, at a fraction of its cost: tracing's largest cost in the pusher was the
  // SDK serializing batches). JSON: the SDK's exporter as it is.
  const processor: SpanProcessor =
    protocol === 'http/json'
      ? new BatchSpanProcessor({ exporter: new OTLPJsonTraceExporter({ url }), ...batching })
      : new OtlpProtobufSpanProcessor({ url, ...batching });
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    spanProcessors: [processor],
    // Spans are created explicitly where hookstream's semantics are known; no auto-instrumentation.
    instrumentations: [],
    // Traces only: metrics are scraped from /metrics (startMetrics) and logs are pino lines, so
    // the SDK's default OTLP metric and log exporters would only send empty batches.
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.sampleRatio === undefined
      ? {}
      : { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }) }),
  });
  sdk.start();
  return {
    enabled: true,
    shutdown: async () => {
      await sdk.shutdown();
      // Back to the API's no-op globals, so tracing can be started again in this process (the
      // pusher benchmark alternates traced and untraced runs).
      trace.disable();
      context.disable();
      propagation.disable();
      logs.disable();
    },
  };
}
