import {
  context,
  type HrTime,
  propagation,
  ROOT_CONTEXT,
  type Sampler,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  type InstrumentationScope,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  EventSendSpan,
  INGRESS_HTTP_TRACER_NAME,
  PRODUCER_TRACER_NAME,
  type RequestHeaders,
  RequestSpan,
} from '../src/ingress-spans.ts';
import { LiteTracerImpl } from '../src/lite-spans.ts';
import { installLiteTracer, liteTracerFor, uninstallLiteTracer } from '../src/lite-tracer.ts';
import {
  ClockRecorder,
  expectSameExport,
  ids,
  replayingLiteTracer,
  SAMPLER_CASES,
} from './sdk-comparison.ts';

/*
 * The ingress's spans from the lite tracer must export exactly what the SDK's tracers export for
 * the same requests, as the delivery spans' test (lite-spans.test.ts) checks for the pusher: both
 * run the same scenario with the same ids, the lite spans replaying the SDK spans' clock readings
 * in the order the SDK took them; the OTLP bytes and the records' traceparents must be equal.
 */

const resource = resourceFromAttributes({ 'service.name': 'hookstream-ingress', 'process.pid': 4242 });
const TOPIC = 'hookstream.events';
const EVENT = { id: 'evt_1', type: 'key.revoked', key: 'tenant-1' };
const TENANTS = { id: 'evt_2', type: 'key.revoked', key: 'tenant-2', tenant: 'acme' };

/** The ingress's two tracers: its request spans' and the producer's. */
interface Tracers {
  readonly http: Tracer;
  readonly producer: Tracer;
}

/** What one request does to its spans, as IngressHttp and EventProducer do it; the records' traceparents. */
type Scenario = (t: Tracers, headers: RequestHeaders) => (string | undefined)[];

const kafkaDown = Object.assign(new Error('cannot connect to Kafka'), { code: 'KAFKA_UNAVAILABLE' });

const SCENARIOS: Record<string, Scenario> = {
  'one event, accepted': (t, headers) => {
    const request = new RequestSpan(t.http, 'POST', '/v1/events', headers);
    const send = new EventSendSpan(t.producer, TOPIC, EVENT, request.context);
    send.acknowledged(2, '41');
    request.end(202);
    return [send.traceparent];
  },
  "a batch, one event a tenant's": (t, headers) => {
    const request = new RequestSpan(t.http, 'POST', '/v1/events/batch', headers);
    const sends = [EVENT, TENANTS].map((e) => new EventSendSpan(t.producer, TOPIC, e, request.context));
    sends.forEach((s, i) => {
      s.acknowledged(0, String(100 + i));
    });
    request.end(202);
    return sends.map((s) => s.traceparent);
  },
  'refused before publishing': (t, headers) => {
    const request = new RequestSpan(t.http, 'POST', '/v1/events', headers);
    request.refused('malformed_json', false);
    request.end(400);
    return [];
  },
  'Kafka down: the publish fails, the request with a 503': (t, headers) => {
    const request = new RequestSpan(t.http, 'POST', '/v1/events', headers);
    const send = new EventSendSpan(t.producer, TOPIC, EVENT, request.context);
    send.failed(kafkaDown);
    request.refused('kafka_unavailable', true);
    request.end(503);
    return [send.traceparent];
  },
  'a method outside the known set': (t, headers) => {
    const request = new RequestSpan(t.http, '_OTHER', '/v1/events', headers);
    request.refused('method_not_allowed', false);
    request.end(405);
    return [];
  },
  // EventProducer used as a library: the parent is the caller's traceparent, or none.
  "a library publish under the caller's traceparent": (t, headers) => {
    const [, traceId = '', spanId = '', flags = '00'] = (headers.traceparent as string | undefined)?.split(
      '-',
    ) ?? [undefined, 'a'.repeat(32), 'b'.repeat(16), '01'];
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId,
      traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
      isRemote: true,
    });
    const send = new EventSendSpan(t.producer, TOPIC, TENANTS, parent);
    send.failed('not an Error');
    return [send.traceparent];
  },
  'a library publish without a parent': (t) => {
    const send = new EventSendSpan(t.producer, TOPIC, EVENT, ROOT_CONTEXT);
    send.acknowledged(1, '7');
    return [send.traceparent];
  },
};

const REQUESTS: Record<string, RequestHeaders> = {
  'a sampled caller with trace state': {
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    tracestate: 'vendor=value,other=1',
    'content-type': 'application/json',
  },
  'an unsampled caller': { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' },
  'no trace context': { 'content-type': 'application/json' },
  'an invalid traceparent': { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
  'an upper-case traceparent': { traceparent: '00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01' },
};

interface Run {
  readonly spans: ReadableSpan[];
  readonly traceparents: (string | undefined)[];
}

function scopeOf(tracer: Tracer): InstrumentationScope {
  const scope = (tracer as unknown as { instrumentationScope?: InstrumentationScope }).instrumentationScope;
  if (scope === undefined) throw new Error('the SDK tracer has no instrumentationScope');
  return scope;
}

function sdkRun(
  headers: RequestHeaders,
  scenario: Scenario,
  sampler?: Sampler,
): Run & { times: HrTime[]; scopes: Record<string, InstrumentationScope> } {
  const exporter = new InMemorySpanExporter();
  const clock = new ClockRecorder();
  const provider = new TracerProvider({
    resource,
    idGenerator: ids(),
    spanProcessors: [clock, new SimpleSpanProcessor({ exporter })],
    ...(sampler ? { sampler } : {}),
  });
  const http = provider.getTracer(INGRESS_HTTP_TRACER_NAME);
  const producer = provider.getTracer(PRODUCER_TRACER_NAME);
  const traceparents = scenario({ http, producer }, headers);
  return {
    spans: exporter.getFinishedSpans(),
    traceparents,
    times: clock.times,
    scopes: { http: scopeOf(http), producer: scopeOf(producer) },
  };
}

function liteRun(
  headers: RequestHeaders,
  scenario: Scenario,
  scopes: Record<string, InstrumentationScope>,
  times: HrTime[],
  sampling: { parentBasedRoot?: Sampler; sampler?: Sampler },
): Run {
  const exporter = new InMemorySpanExporter();
  const { lite, unread } = replayingLiteTracer({
    resource,
    scope: scopes.http as InstrumentationScope,
    processor: new SimpleSpanProcessor({ exporter }),
    times,
    sampling,
  });
  // Stand-in tracer objects: the spans find the lite tracers installed for them (as
  // tracing-sdk.ts installs them: one, and the same with the producer's scope).
  const fail = () => {
    throw new Error('the SDK tracer was asked');
  };
  const http = { startSpan: fail, startActiveSpan: fail } as unknown as Tracer;
  const producer = { startSpan: fail, startActiveSpan: fail } as unknown as Tracer;
  installLiteTracer(lite, http, INGRESS_HTTP_TRACER_NAME);
  installLiteTracer(lite.withScope(scopes.producer as InstrumentationScope), producer, PRODUCER_TRACER_NAME);
  try {
    const traceparents = scenario({ http, producer }, headers);
    expect(unread).toEqual([]);
    return { spans: exporter.getFinishedSpans(), traceparents };
  } finally {
    uninstallLiteTracer();
  }
}

describe("the ingress's spans from the lite tracer", () => {
  beforeAll(() =>
    propagation.setGlobalPropagator(
      new CompositePropagator({
        propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
      }),
    ),
  );
  afterAll(() => propagation.disable());
  afterEach(() => uninstallLiteTracer());

  for (const [samplerName, makeSampler] of Object.entries(SAMPLER_CASES))
    for (const [requestName, headers] of Object.entries(REQUESTS))
      for (const [scenarioName, scenario] of Object.entries(SCENARIOS))
        it(`export the SDK's bytes and the records' traceparents: ${samplerName}, ${requestName}, ${scenarioName}`, () => {
          const sampling = makeSampler();
          const sdk = sdkRun(headers, scenario, sampling.sdk);
          const lite = liteRun(headers, scenario, sdk.scopes, sdk.times, sampling.lite);
          expect(lite.traceparents).toEqual(sdk.traceparents);
          expect(lite.spans.map((s) => s.name)).toEqual(sdk.spans.map((s) => s.name));
          if (sdk.spans.length === 0) return;
          expectSameExport(lite.spans, sdk.spans, resource);
        });

  it('covers sampled and unsampled runs, and a trace continued from the caller', () => {
    const accepted = SCENARIOS['one event, accepted'] as Scenario;
    const sampled = sdkRun(REQUESTS['a sampled caller with trace state'] as RequestHeaders, accepted);
    expect(sampled.spans.map((s) => [s.name, s.spanContext().traceId])).toEqual([
      ['send hookstream.events', '0af7651916cd43dd8448eb211c80319c'],
      ['POST /v1/events', '0af7651916cd43dd8448eb211c80319c'],
    ]);
    expect(sampled.traceparents[0]).toBe(
      `00-0af7651916cd43dd8448eb211c80319c-${sampled.spans[0]?.spanContext().spanId}-01`,
    );
    const unsampled = sdkRun(REQUESTS['an unsampled caller'] as RequestHeaders, accepted);
    expect(unsampled.spans).toHaveLength(0);
    expect(unsampled.traceparents[0]).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-00$/);
  });

  it('leaves a request carrying baggage (or list values) to the SDK tracer, which propagates it', () => {
    const lite = new LiteTracerImpl({
      resource,
      scope: { name: INGRESS_HTTP_TRACER_NAME },
      processor: new ClockRecorder(),
      idGenerator: ids(),
      attributeCountLimit: 128,
      parentBasedRoot: new AlwaysOnSampler(),
    });
    const provider = new TracerProvider({ resource });
    const http = provider.getTracer(INGRESS_HTTP_TRACER_NAME);
    installLiteTracer(lite, http, INGRESS_HTTP_TRACER_NAME);
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    for (const headers of [{ traceparent: parent, baggage: 'a=1' }, { traceparent: [parent] }]) {
      const request = new RequestSpan(http, 'POST', '/v1/events', headers);
      const span = trace.getSpan(request.context);
      // The SDK's span, not a lite one: the lite spans have no `_spanProcessor`.
      expect(span && '_spanProcessor' in span).toBe(true);
      expect(span?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      request.end(202);
    }
    const withBaggage = new RequestSpan(http, 'POST', '/v1/events', { traceparent: parent, baggage: 'a=1' });
    expect(propagation.getBaggage(withBaggage.context)?.getEntry('a')?.value).toBe('1');
  });

  it("makes the request span the active one in its context, as log lines and the producer's parent read it", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const lite = new LiteTracerImpl({
        resource,
        scope: { name: INGRESS_HTTP_TRACER_NAME },
        processor: new ClockRecorder(),
        idGenerator: ids(),
        attributeCountLimit: 128,
        parentBasedRoot: new AlwaysOnSampler(),
      });
      const http = {} as Tracer;
      installLiteTracer(lite, http, INGRESS_HTTP_TRACER_NAME);
      const request = new RequestSpan(http, 'POST', '/v1/events', REQUESTS['no trace context'] ?? {});
      const seen = await context.with(request.context, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return trace.getActiveSpan()?.spanContext();
      });
      expect(seen?.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(seen).toBe(trace.getSpan(request.context)?.spanContext());
      expect(request.context.getValue(Symbol.for('OpenTelemetry Context Key SPAN'))).toBeDefined();
    } finally {
      context.disable();
    }
  });
});

describe('startTracing and the ingress spans', () => {
  // As for the delivery tracer (tracing.test.ts): an SDK or API upgrade that moved what the lite
  // tracer reads would silently leave the ingress on the dearer SDK spans.
  it("installs the lite tracer for the ingress's two tracers, and removes it at shutdown", async () => {
    const { startTracing } = await import('../src/tracing.ts');
    const early = trace.getTracer(INGRESS_HTTP_TRACER_NAME);
    const saved = process.env.OTEL_PROPAGATORS;
    delete process.env.OTEL_PROPAGATORS;
    const tracing = await startTracing({
      serviceName: 'test',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    });
    try {
      expect(liteTracerFor(early)).toBeDefined();
      expect(liteTracerFor(trace.getTracer(INGRESS_HTTP_TRACER_NAME))).toBeDefined();
      expect(liteTracerFor(trace.getTracer(PRODUCER_TRACER_NAME))).toBeDefined();
      expect(liteTracerFor(trace.getTracer(PRODUCER_TRACER_NAME))).not.toBe(liteTracerFor(early));
    } finally {
      await tracing.shutdown();
      if (saved !== undefined) process.env.OTEL_PROPAGATORS = saved;
    }
    expect(liteTracerFor(trace.getTracer(PRODUCER_TRACER_NAME))).toBeUndefined();
    // Loads the OpenTelemetry SDK inside the test: seconds on a busy machine.
  }, 60_000);
});
