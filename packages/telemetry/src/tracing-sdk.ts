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
import { OtlpProtobufSpanProcessor } from './otlp-span-processor.ts';

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
  readonly sampleRatio: number | undefined;
}

export interface StartedSdk {
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
  const sampler =
    options.sampleRatio === undefined
      ? samplerFromEnv()
      : new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) });
  const provider = new TracerProvider({
    resource,
    spanProcessors: [processor],
    spanLimits: spanLimitsFromEnv(),
    ...(sampler === undefined ? {} : { sampler }),
  });
  trace.setGlobalTracerProvider(provider);
  return { flush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

async function spanProcessor(options: SdkOptions): Promise<SpanProcessor> {
  const { protocol, url } = options;
  // Protobuf: hookstream's own processor, which encodes each span as it ends (the same bytes as
  // the SDK's exporter, at a fraction of its cost: tracing's largest cost in the pusher was the
  // SDK serializing batches). JSON: the SDK's exporter as it is, loaded only then.
  if (protocol !== 'http/json') return new OtlpProtobufSpanProcessor({ url, ...BATCHING });
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

/** OTEL_TRACES_SAMPLER[_ARG]; undefined leaves the SDK's default (parent-based, always on). */
function samplerFromEnv(): Sampler | undefined {
  const name = getStringFromEnv('OTEL_TRACES_SAMPLER');
  switch (name) {
    case undefined:
      return undefined;
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(samplerRatioFromEnv());
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplerRatioFromEnv()) });
    default:
      diag.error(`unknown OTEL_TRACES_SAMPLER value "${name}", using default`);
      return undefined;
  }
}

function samplerRatioFromEnv(): number {
  const ratio = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
  if (ratio === undefined) {
    diag.error('OTEL_TRACES_SAMPLER_ARG is blank, defaulting to 1.');
    return 1;
  }
  if (ratio < 0 || ratio > 1) {
    diag.error(
      `OTEL_TRACES_SAMPLER_ARG=${ratio} was given, but it is out of range ([0..1]), defaulting to 1.`,
    );
    return 1;
  }
  return ratio;
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
