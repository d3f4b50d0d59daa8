import {
  context,
  DiagConsoleLogger,
  diag,
  propagation,
  type TextMapPropagator,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  diagLogLevelFromString,
  getNumberFromEnv,
  getStringFromEnv,
  getStringListFromEnv,
  type InstrumentationScope,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import {
  defaultResource,
  detectResources,
  envDetector,
  hostDetector,
  osDetector,
  processDetector,
  type Resource,
  type ResourceDetector,
  resourceFromAttributes,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanLimits,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { INGRESS_TRACER_NAMES } from './ingress-spans.ts';
import { LiteTracerImpl, pooledIdGenerator } from './lite-spans.ts';
import { DELIVERY_TRACER_NAME, installLiteTracer, uninstallLiteTracer } from './lite-tracer.ts';
import {
  type CollectorState,
  OtlpProtobufSpanProcessor,
  type SpanExportStats,
} from './otlp-span-processor.ts';
import { FailuresSampled, isAlwaysSampled } from './retry-sampling.ts';
import type { TracingConfig } from './tracing-config.ts';

/*
 * The tracing SDK, loaded by startTracing only when tracing is on. It registers what NodeSDK
 * (@opentelemetry/sdk-node) registered with hookstream's settings (one explicit span processor,
 * no instrumentations, no metric readers or log processors), reading the same OTEL_* variables
 * from process.env, without loading NodeSDK: that package imports every exporter, propagator and
 * configuration loader it can be set up with (gRPC, Zipkin, protobufjs, a YAML schema
 * validator), ~10 MB of the RSS of every traced process.
 */

export interface SdkOptions {
  readonly serviceName: string;
  readonly protocol: string;
  readonly url: string;
  /** Parsed once by startTracing (loadTracingConfig, or the caller's forced ratio). */
  readonly sampling: TracingConfig;
  readonly onCollectorState: ((state: CollectorState) => void) | undefined;
}

export interface StartedSdk {
  stats(): SpanExportStats | null;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Spans per batch, its delay and queue: the same for both encodings. */
const BATCHING = { scheduledDelayMillis: 500, maxQueueSize: 8192, maxExportBatchSize: 1024 };

export async function startSdk(options: SdkOptions): Promise<StartedSdk> {
  const logLevel = getStringFromEnv('OTEL_LOG_LEVEL');
  if (logLevel !== undefined) {
    // An unknown level leaves the API's default (info), as with NodeSDK.
    const level = diagLogLevelFromString(logLevel);
    diag.setLogger(new DiagConsoleLogger(), level === undefined ? {} : { logLevel: level });
  }
  const processor = await spanProcessor(options);
  const contextManager = new AsyncLocalStorageContextManager();
  contextManager.enable();
  context.setGlobalContextManager(contextManager);
  const propagator = await propagatorFromEnv();
  if (propagator !== null) propagation.setGlobalPropagator(propagator);
  const resource = defaultResource()
    .merge(detectResources({ detectors: resourceDetectorsFromEnv() }))
    .merge(resourceFromAttributes({ 'service.name': options.serviceName }));
  const sampling = samplingOf(options.sampling);
  const spanLimits = spanLimitsFromEnv();
  const provider = new TracerProvider({
    resource,
    spanProcessors: [processor],
    spanLimits,
    // The configured sampler, but every retry and every dead-letter write is traced.
    sampler: new FailuresSampled(sampling.sampler),
  });
  trace.setGlobalTracerProvider(provider);
  installLite(provider, processor, sampling, spanLimits);
  return {
    stats: () => (processor instanceof OtlpProtobufSpanProcessor ? processor.stats() : null),
    flush: () => provider.forceFlush(),
    shutdown: () => {
      uninstallLiteTracer();
      return provider.shutdown();
    },
  };
}

/** The sampler given to the provider and, when parent-based, its root. */
interface Sampling {
  readonly sampler: Sampler;
  readonly parentBasedRoot: Sampler | undefined;
}

function parentBased(root: Sampler): Sampling {
  return { sampler: new ParentBasedSampler({ root }), parentBasedRoot: root };
}

/**
 * The lite tracer (lite-spans.ts) of the delivery spans and of the ingress's, standing in for the
 * SDK's tracers of those names where it exports exactly what they would: the W3C propagators
 * (others read and write headers it does not) and no attribute value length limit (it does not
 * truncate).
 */
function installLite(
  provider: TracerProvider,
  processor: SpanProcessor,
  sampling: Sampling,
  limits: SpanLimits,
): void {
  const propagators = getStringListFromEnv('OTEL_PROPAGATORS');
  const w3c =
    propagators === undefined ||
    (propagators.includes('tracecontext') &&
      propagators.every((p) => p === 'tracecontext' || p === 'baggage'));
  const valueLimit = limits.attributeValueLengthLimit;
  if (!w3c || (valueLimit !== undefined && valueLimit !== Infinity)) return;
  const sdkTracer = provider.getTracer(DELIVERY_TRACER_NAME);
  // The SDK tracer's own resource and scope (the same objects), so its spans and the lite ones
  // share a batch group and look alike.
  const internals = sdkTracer as unknown as {
    instrumentationScope?: InstrumentationScope;
    _resource?: Resource;
  };
  const { instrumentationScope: scope, _resource: resource } = internals;
  if (scope === undefined || resource === undefined) return;
  const lite = new LiteTracerImpl({
    resource,
    scope,
    processor,
    idGenerator: pooledIdGenerator(),
    attributeCountLimit: limits.attributeCountLimit ?? 128,
    alwaysSampled: isAlwaysSampled,
    ...(sampling.parentBasedRoot !== undefined
      ? { parentBasedRoot: sampling.parentBasedRoot }
      : { sampler: sampling.sampler }),
  });
  installLiteTracer(lite, sdkTracer, DELIVERY_TRACER_NAME);
  // The ingress's tracers too (ingress-spans.ts): the same settings, each with its own scope.
  for (const name of INGRESS_TRACER_NAMES) {
    const tracer = provider.getTracer(name);
    const own = (tracer as unknown as { instrumentationScope?: InstrumentationScope }).instrumentationScope;
    if (own !== undefined) installLiteTracer(lite.withScope(own), tracer, name);
  }
}

async function spanProcessor(options: SdkOptions): Promise<SpanProcessor> {
  const { protocol, url } = options;
  // Protobuf: hookstream's own processor, which encodes each span as it ends (the same bytes as
  // the SDK's exporter, at a fraction of its cost: tracing's largest cost in the pusher was the
  // SDK serializing batches). JSON: the SDK's exporter as it is, loaded only then.
  if (protocol !== 'http/json') {
    return new OtlpProtobufSpanProcessor({
      url,
      ...BATCHING,
      ...(options.onCollectorState === undefined ? {} : { onCollectorState: options.onCollectorState }),
    });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }), ...BATCHING });
}

/** OTEL_NODE_RESOURCE_DETECTORS (env, host, os, process, serviceinstance, all, none); default all. */
function resourceDetectorsFromEnv(): ResourceDetector[] {
  const known = new Map<string, ResourceDetector>([
    ['host', hostDetector],
    ['os', osDetector],
    ['serviceinstance', serviceInstanceIdDetector],
    ['process', processDetector],
    ['env', envDetector],
  ]);
  const names = getStringListFromEnv('OTEL_NODE_RESOURCE_DETECTORS') ?? ['all'];
  if (names.includes('all')) return [...known.values()];
  if (names.includes('none')) return [];
  return names.flatMap((name) => {
    const detector = known.get(name);
    if (!detector) diag.warn(`Invalid resource detector "${name}" in OTEL_NODE_RESOURCE_DETECTORS`);
    return detector ? [detector] : [];
  });
}

/** OTEL_PROPAGATORS; unset: W3C trace context and baggage. null: none. */
async function propagatorFromEnv(): Promise<TextMapPropagator | null> {
  const names = getStringListFromEnv('OTEL_PROPAGATORS');
  if (names === undefined)
    return new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    });
  if (names.includes('none')) return null;
  const unique = [...new Set(names)];
  const propagators: TextMapPropagator[] = [];
  for (const name of unique) {
    if (name === 'tracecontext') propagators.push(new W3CTraceContextPropagator());
    else if (name === 'baggage') propagators.push(new W3CBaggagePropagator());
    else if (name === 'b3' || name === 'b3multi') {
      // Only a process asked for B3 loads it.
      const { B3InjectEncoding, B3Propagator } = await import('@opentelemetry/propagator-b3');
      propagators.push(
        name === 'b3'
          ? new B3Propagator()
          : new B3Propagator({ injectEncoding: B3InjectEncoding.MULTI_HEADER }),
      );
    } else diag.warn(`Propagator "${name}" requested through environment variable is unavailable.`);
  }
  if (propagators.length === 0) return null;
  return unique.length === 1 && propagators[0] ? propagators[0] : new CompositePropagator({ propagators });
}

/** The SDK's sampler for the configured one (its variables were checked by loadTracingConfig). */
function samplingOf(config: TracingConfig): Sampling {
  const plain = (sampler: Sampler): Sampling => ({ sampler, parentBasedRoot: undefined });
  switch (config.sampler) {
    case 'always_on':
      return plain(new AlwaysOnSampler());
    case 'always_off':
      return plain(new AlwaysOffSampler());
    case 'parentbased_always_on':
      return parentBased(new AlwaysOnSampler());
    case 'parentbased_always_off':
      return parentBased(new AlwaysOffSampler());
    case 'traceidratio':
      return plain(new TraceIdRatioBasedSampler(config.ratio));
    case 'parentbased_traceidratio':
      return parentBased(new TraceIdRatioBasedSampler(config.ratio));
  }
}

/** The OTEL_*_LIMIT variables; a limit left unset keeps the SDK's default. */
function spanLimitsFromEnv(): SpanLimits {
  const limits: Record<keyof SpanLimits, number | undefined> = {
    attributeCountLimit:
      getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? getNumberFromEnv('OTEL_ATTRIBUTE_COUNT_LIMIT'),
    attributeValueLengthLimit:
      getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ??
      getNumberFromEnv('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'),
    eventCountLimit: getNumberFromEnv('OTEL_SPAN_EVENT_COUNT_LIMIT'),
    linkCountLimit: getNumberFromEnv('OTEL_SPAN_LINK_COUNT_LIMIT'),
    attributePerEventCountLimit:
      getNumberFromEnv('OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT') ??
      getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT'),
    attributePerLinkCountLimit:
      getNumberFromEnv('OTEL_LINK_ATTRIBUTE_COUNT_LIMIT') ??
      getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT'),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
