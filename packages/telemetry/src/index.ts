export type {
  ConsumedMessage,
  HttpSpan,
  HttpTarget,
  ProcessSpanOptions,
  SampledIds,
  SendSpan,
} from './delivery-spans.ts';
export { deliveryTracer, httpTarget, ProcessSpan } from './delivery-spans.ts';
export type { PublishedEvent, RequestHeaders } from './ingress-spans.ts';
export {
  EventSendSpan,
  INGRESS_HTTP_TRACER_NAME,
  PRODUCER_TRACER_NAME,
  RequestSpan,
} from './ingress-spans.ts';
export type { TimelineEntry } from './jaeger-query.ts';
export {
  findEventTraces,
  HOOKSTREAM_SERVICES,
  JaegerSpan,
  JaegerTrace,
  traceTimeline,
} from './jaeger-query.ts';
export type { Logger, LoggerOptions, LogLevel } from './logger.ts';
export { createLogger, logFn, REDACTED_PATHS } from './logger.ts';
export type { ExemplarCounter, Meter, Metrics, MetricsServer } from './metrics.ts';
export { exemplarCounter, serveMetrics, startMetrics } from './metrics.ts';
export type { CollectorState, SpanExportStats } from './otlp-span-processor.ts';
export type { KafkaHeaders } from './propagation.ts';
export { extractTraceContext, injectTraceContext } from './propagation.ts';
export { ATTR, MESSAGING_SYSTEM_KAFKA } from './semconv.ts';
export { traceKey } from './trace-key.ts';
export type { Tracing, TracingOptions } from './tracing.ts';
export { collectorStateLogger, observeSpanExport, startTracing, tracesUrl } from './tracing.ts';
export type { TracesSampler, TracingConfig } from './tracing-config.ts';
export {
  DEFAULT_TRACING_CONFIG,
  loadTracingConfig,
  TRACES_SAMPLERS,
  TracingConfigError,
  TracingEnv,
} from './tracing-config.ts';
