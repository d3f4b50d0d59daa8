import { context, propagation, trace } from '@opentelemetry/api';

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
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
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
 * OTEL_SDK_DISABLED=true to turn tracing off. The SDK is loaded here, only when tracing is on: a
 * process with tracing off never holds it.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED === 'true')
    return { enabled: false, flush: async () => undefined, shutdown: async () => undefined };
  // OTLP's default encoding is protobuf, which also costs the exporting process less than JSON;
  // OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL=http/json switches to JSON.
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const { startSdk } = await import('./tracing-sdk.ts');
  const sdk = await startSdk({
    serviceName: options.serviceName,
    protocol,
    url: tracesUrl(env),
    sampleRatio: options.sampleRatio,
  });
  return {
    enabled: true,
    flush: () => sdk.flush(),
    shutdown: async () => {
      await sdk.shutdown();
      // Back to the API's no-op globals, so tracing can be started again in this process (the
      // pusher benchmark alternates traced and untraced runs).
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
