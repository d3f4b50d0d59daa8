import { context, type Meter, propagation, trace } from '@opentelemetry/api';
import type { CollectorState, SpanExportStats } from './otlp-span-processor.ts';
import { loadTracingConfig } from './tracing-config.ts';

export interface TracingOptions {
  /** hookstream-ingress, hookstream-pusher, hookstream-replay, … */
  readonly serviceName: string;
  readonly env?: Record<string, string | undefined>;
  /**
   * Share of new traces recorded (0..1), overriding OTEL_TRACES_SAMPLER; continued traces
   * follow their parent's decision (retries and dead letters are recorded all the same). For
   * measurements that must not depend on the environment: the benchmark forces 1.
   */
  readonly sampleRatio?: number;
  /**
   * Told when the OTLP collector stops answering (spans are then held, up to a bound) and when
   * it answers again (held spans sent): for the process's log. http/protobuf only.
   */
  readonly onCollectorState?: (state: CollectorState) => void;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Held and dropped spans (http/protobuf); null when tracing is off or exports JSON. */
  stats(): SpanExportStats | null;
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
 * (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG, read by loadTracingConfig: default parent-based
 * always-on), the encoding (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL: http/protobuf by default, or
 * http/json) and OTEL_SDK_DISABLED=true to turn tracing off. The SDK is loaded here, only when
 * tracing is on: a process with tracing off never holds it.
 *
 * Called once, at a process's start: a bad sampler value throws a TracingConfigError naming the
 * variable (also with tracing off: the value is wrong either way), before anything starts.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const env = options.env ?? process.env;
  const config = loadTracingConfig(env);
  if (env.OTEL_SDK_DISABLED === 'true')
    return {
      enabled: false,
      stats: () => null,
      flush: async () => undefined,
      shutdown: async () => undefined,
    };
  // OTLP's default encoding is protobuf, which also costs the exporting process less than JSON;
  // OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL=http/json switches to JSON.
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const { startSdk } = await import('./tracing-sdk.ts');
  const sdk = await startSdk({
    serviceName: options.serviceName,
    protocol,
    url: tracesUrl(env),
    sampling:
      options.sampleRatio === undefined
        ? config
        : { sampler: 'parentbased_traceidratio', ratio: options.sampleRatio },
    onCollectorState: options.onCollectorState,
  });
  return {
    enabled: true,
    stats: () => sdk.stats(),
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

/**
 * The span export's counts as metrics: `hookstream.tracing.spans.held` (waiting for the
 * collector) and `hookstream.tracing.spans.dropped` (since start: queue full, past the held
 * bound, refused by the collector, or still held at shutdown).
 */
export function observeSpanExport(meter: Meter, tracing: Tracing): void {
  const held = meter.createObservableGauge('hookstream.tracing.spans.held', {
    description: 'Spans held in this process while the OTLP collector does not answer',
  });
  const dropped = meter.createObservableCounter('hookstream.tracing.spans.dropped', {
    description: 'Spans this process dropped instead of exporting them',
  });
  meter.addBatchObservableCallback(
    (result) => {
      const stats = tracing.stats();
      if (stats === null) return;
      result.observe(held, stats.heldSpans);
      result.observe(dropped, stats.droppedSpans);
    },
    [held, dropped],
  );
}

/** A log line for each change of the collector's state, for startTracing's onCollectorState. */
export function collectorStateLogger(
  log: (level: 'warn' | 'info', message: string, fields: Record<string, unknown>) => void,
): (state: CollectorState) => void {
  return (state) => {
    if (state.state === 'unreachable') {
      log('warn', 'tracing: the OTLP collector does not answer; holding spans until it does', {
        error: state.error,
        maxHeldBytes: state.maxHeldBytes,
      });
    } else {
      log('info', 'tracing: the OTLP collector answers again; held spans sent', {
        sentSpans: state.sentHeldSpans,
        droppedSpans: state.droppedSpans,
      });
    }
  };
}
