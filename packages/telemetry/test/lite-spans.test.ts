import {
  type Attributes,
  type HrTime,
  propagation,
  type Sampler,
  type SpanKind,
  type Tracer,
} from '@opentelemetry/api';
import { type InstrumentationScope, parseTraceParent, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsumedMessage,
  httpTarget,
  ProcessSpan,
  type ProcessSpanOptions,
} from '../src/delivery-spans.ts';
import { LiteTracerImpl, plainTraceparent, pooledIdGenerator } from '../src/lite-spans.ts';
import { installLiteTracer, liteTracerFor, uninstallLiteTracer } from '../src/lite-tracer.ts';
import { FailuresSampled, isAlwaysSampled } from '../src/retry-sampling.ts';
import {
  ClockRecorder,
  expectSameExport,
  ids,
  ownBytes,
  replayingLiteTracer,
  SAMPLER_CASES,
  sdkBytes,
} from './sdk-comparison.ts';

/*
 * The lite tracer must export exactly what the SDK tracer exports for the same delivery. Both
 * run the same scenario with the same ids; the lite spans replay the SDK spans' clock readings,
 * in the order the SDK took them. Then the OTLP bytes and the propagated headers must be equal.
 */

const resource = resourceFromAttributes({ 'service.name': 'hookstream-pusher', 'process.pid': 4242 });
const target = httpTarget(new URL('http://user:pw@127.0.0.1:8080/hooks?sig=abc'));
const options: ProcessSpanOptions = {
  consumerGroup: 'hookstream.sub.a',
  subscriber: 'a',
  eventId: 'evt_1',
  eventType: 'shipment.updated',
  tier: undefined,
};

/** What one delivery does to its spans: the four ways a record ends in the pusher. */
type Scenario = (span: ProcessSpan) => {
  traceparent: string | undefined;
  sendHeaders?: Record<string, string>;
};

const SCENARIOS: Record<string, Scenario> = {
  delivered: (span) => {
    span.attempt = 1;
    span.limiterWait(0.4);
    const http = span.http('POST', target, { 'hookstream.breaker.state': 'closed' });
    http.responded(204);
    span.end('delivered', 'ack');
    return { traceparent: http.traceparent };
  },
  'retry after a timeout': (span) => {
    span.attempt = 2;
    const http = span.http('POST', target, {
      'hookstream.breaker.state': 'half-open',
      'hookstream.breaker.probe': true,
    });
    http.failed('timeout');
    const send = span.send('hookstream.sub.a.retry.2', { 'hookstream.retry.tier': 2 });
    send.end('settled');
    span.end('retry-scheduled', 'timeout');
    return { traceparent: http.traceparent, sendHeaders: send.traceHeaders };
  },
  'dead-lettered, the hand-off abandoned': (span) => {
    span.attempt = 1;
    const http = span.http('POST', target);
    http.responded(422);
    const send = span.send('hookstream.sub.a.dlq', { 'hookstream.dead_letter.reason': 'terminal' });
    send.end('abandoned');
    span.end('dead-lettered', 'terminal', true);
    return { traceparent: http.traceparent, sendHeaders: send.traceHeaders };
  },
  filtered: (span) => {
    span.end('filtered');
    return { traceparent: undefined };
  },
};

const RECORDS: Record<string, ConsumedMessage> = {
  'a sampled remote parent with trace state': {
    topic: 'hookstream.events',
    partition: 3,
    offset: '123456',
    key: 'ship-1',
    headers: {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=value,other=1',
    },
  },
  'an unsampled remote parent': {
    topic: 'hookstream.sub.a.retry.1',
    partition: 0,
    offset: '7',
    key: null,
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' },
  },
  'no parent': { topic: 'hookstream.events', partition: 1, offset: '9', key: 'ship-2', headers: {} },
  'an invalid parent': {
    topic: 'hookstream.events',
    partition: 1,
    offset: '10',
    key: 'ship-2',
    headers: { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
  },
};

/** Forwards to several processors (the SDK tracer fans out the same way). */
function both(a: SpanProcessor, b: SpanProcessor): SpanProcessor {
  return {
    onStart: (span, ctx) => {
      a.onStart(span, ctx);
      b.onStart(span, ctx);
    },
    onEnd: (span) => {
      a.onEnd(span);
      b.onEnd(span);
    },
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}

interface Run {
  readonly spans: ReadableSpan[];
  readonly result: ReturnType<Scenario>;
  readonly traceId: string | undefined;
}

function sdkRun(
  record: ConsumedMessage,
  scenario: Scenario,
  sampler?: Sampler,
  spanOptions: ProcessSpanOptions = options,
): Run & { times: HrTime[] } {
  const exporter = new InMemorySpanExporter();
  const clock = new ClockRecorder();
  const provider = new TracerProvider({
    resource,
    idGenerator: ids(),
    spanProcessors: [clock, new SimpleSpanProcessor({ exporter })],
    ...(sampler ? { sampler } : {}),
  });
  const span = new ProcessSpan(provider.getTracer('hookstream-pusher'), record, spanOptions);
  const result = scenario(span);
  return { spans: exporter.getFinishedSpans(), result, traceId: span.traceId, times: clock.times };
}

function liteRun(
  record: ConsumedMessage,
  scenario: Scenario,
  scope: InstrumentationScope,
  times: HrTime[],
  sampling: {
    parentBasedRoot?: Sampler;
    sampler?: Sampler;
    alwaysSampled?: (k: SpanKind, a: Attributes) => boolean;
  },
  spanOptions: ProcessSpanOptions = options,
): Run {
  const exporter = new InMemorySpanExporter();
  const { lite } = replayingLiteTracer({
    resource,
    scope,
    processor: both(new SimpleSpanProcessor({ exporter }), new ClockRecorder()),
    times,
    sampling,
  });
  // A stand-in tracer object: ProcessSpan finds the lite tracer installed for it.
  const standIn = { startSpan: () => undefined, startActiveSpan: () => undefined } as unknown as Tracer;
  installLiteTracer(lite, standIn, 'hookstream-pusher');
  try {
    const span = new ProcessSpan(standIn, record, spanOptions);
    const result = scenario(span);
    return { spans: exporter.getFinishedSpans(), result, traceId: span.traceId };
  } finally {
    uninstallLiteTracer();
  }
}

/** A lite tracer as the pusher gets one: sampled, recording into a clock recorder only. */
function pusherLiteTracer(): LiteTracerImpl {
  return new LiteTracerImpl({
    resource,
    scope: { name: 'hookstream-pusher' },
    processor: new ClockRecorder(),
    idGenerator: ids(),
    attributeCountLimit: 128,
    parentBasedRoot: new AlwaysOnSampler(),
  });
}

describe('delivery spans from the lite tracer', () => {
  beforeAll(() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()));
  afterEach(() => uninstallLiteTracer());

  for (const [samplerName, makeSampler] of Object.entries(SAMPLER_CASES))
    for (const [recordName, record] of Object.entries(RECORDS))
      for (const [scenarioName, scenario] of Object.entries(SCENARIOS))
        it(`export the SDK's bytes and propagate its headers: ${samplerName}, ${recordName}, ${scenarioName}`, () => {
          const sampling = makeSampler();
          const sdk = sdkRun(record, scenario, sampling.sdk);
          const scope = (sdk.spans[0]?.instrumentationScope ?? {
            name: 'hookstream-pusher',
          }) as InstrumentationScope;
          const lite = liteRun(record, scenario, scope, sdk.times, sampling.lite);
          expect(lite.spans.map((s) => s.name)).toEqual(sdk.spans.map((s) => s.name));
          expect(lite.result).toEqual(sdk.result);
          expect(lite.traceId).toBe(sdk.traceId);
          if (sdk.spans.length === 0) return;
          expectSameExport(lite.spans, sdk.spans, resource);
        });

  it('traces every retry, whatever the sampler keeps of first attempts, as the SDK with FailuresSampled does', () => {
    const record = RECORDS['an unsampled remote parent'] ?? Object.values(RECORDS)[0];
    if (record === undefined) throw new Error('no record');
    const scenario = Object.values(SCENARIOS)[0];
    if (scenario === undefined) throw new Error('no scenario');
    const never = () => new ParentBasedSampler({ root: new AlwaysOffSampler() });
    const retry = { ...options, tier: 2 };
    const lite = { parentBasedRoot: new AlwaysOffSampler(), alwaysSampled: isAlwaysSampled };
    const first = sdkRun(record, scenario, new FailuresSampled(never()));
    expect(first.spans).toEqual([]);
    expect(liteRun(record, scenario, { name: 'hookstream-pusher' }, first.times, lite).spans).toEqual([]);
    const sdk = sdkRun(record, scenario, new FailuresSampled(never()), retry);
    expect(sdk.spans.map((x) => x.name)).toContain(`process ${record.topic}`);
    const scope = (sdk.spans[0]?.instrumentationScope ?? {
      name: 'hookstream-pusher',
    }) as InstrumentationScope;
    const liteRetry = liteRun(record, scenario, scope, sdk.times, lite, retry);
    expect(sdkBytes(liteRetry.spans)).toBe(sdkBytes(sdk.spans));
  });

  for (const recordName of ['no parent', 'an unsampled remote parent'])
    it(`traces the dead-letter write of an unsampled first attempt alone, as the SDK does: ${recordName}`, () => {
      const record = RECORDS[recordName] as ConsumedMessage;
      const scenario = SCENARIOS['dead-lettered, the hand-off abandoned'] as Scenario;
      const never = () => new ParentBasedSampler({ root: new AlwaysOffSampler() });
      const sdk = sdkRun(record, scenario, new FailuresSampled(never()));
      // Only the DLQ send: not the process span, not the request.
      expect(sdk.spans.map((x) => x.name)).toEqual(['send hookstream.sub.a.dlq']);
      const [send] = sdk.spans;
      expect(send?.attributes).toMatchObject({
        'hookstream.dead_letter.reason': 'terminal',
        'hookstream.subscriber': 'a',
        'messaging.message.id': 'evt_1',
        'hookstream.attempt': 1,
      });
      // The key as any recorded span carries it (a digest), though the process span had none.
      if (record.key !== null)
        expect(send?.attributes['messaging.kafka.message.key']).toMatch(/^sha256:[0-9a-f]{16}$/);
      // In the record's trace, under its unsampled process span; the DLQ record carries it sampled.
      expect(send?.parentSpanContext?.spanId).toMatch(/^[0-9a-f]{16}$/);
      if (record.headers.traceparent !== undefined)
        expect(send?.spanContext().traceId).toBe(parseTraceParent(record.headers.traceparent)?.traceId);
      expect(sdk.result.sendHeaders?.traceparent).toMatch(/-01$/);
      expect(sdk.traceId).toBeUndefined();
      const scope = (send?.instrumentationScope ?? { name: 'hookstream-pusher' }) as InstrumentationScope;
      const lite = liteRun(record, scenario, scope, sdk.times, {
        parentBasedRoot: new AlwaysOffSampler(),
        alwaysSampled: isAlwaysSampled,
      });
      expect(lite.result).toEqual(sdk.result);
      expect(sdkBytes(lite.spans)).toBe(sdkBytes(sdk.spans));
      expect(ownBytes(lite.spans)).toBe(sdkBytes(sdk.spans));
    });

  for (const [scenarioName, scenario] of Object.entries(SCENARIOS))
    it(`a tenant's event: the SDK's bytes, with hookstream.tenant on its process span: ${scenarioName}`, () => {
      const record = RECORDS['a sampled remote parent with trace state'] as ConsumedMessage;
      const tenant = { ...options, tenant: 'acme' };
      const sdk = sdkRun(record, scenario, undefined, tenant);
      const scope = (sdk.spans[0]?.instrumentationScope ?? {
        name: 'hookstream-pusher',
      }) as InstrumentationScope;
      const lite = liteRun(
        record,
        scenario,
        scope,
        sdk.times,
        { parentBasedRoot: new AlwaysOnSampler() },
        tenant,
      );
      const process = sdk.spans.find((s) => s.name.startsWith('process '));
      expect(process?.attributes['hookstream.tenant']).toBe('acme');
      expect(lite.spans.find((s) => s.name.startsWith('process '))?.attributes['hookstream.tenant']).toBe(
        'acme',
      );
      const expected = sdkBytes(sdk.spans);
      expect(sdkBytes(lite.spans)).toBe(expected);
      expect(ownBytes(lite.spans)).toBe(expected);
      // Without a tenant the attribute is absent, not empty: those bytes are what they were.
      const plain = sdkRun(record, scenario);
      expect(
        'hookstream.tenant' in (plain.spans.find((s) => s.name.startsWith('process '))?.attributes ?? {}),
      ).toBe(false);
    });

  it('covers sampled and unsampled runs alike', () => {
    const sampled = sdkRun(RECORDS['no parent'] as ConsumedMessage, SCENARIOS.delivered as Scenario);
    expect(sampled.spans).toHaveLength(2);
    const unsampled = sdkRun(
      RECORDS['an unsampled remote parent'] as ConsumedMessage,
      SCENARIOS.delivered as Scenario,
    );
    expect(unsampled.spans).toHaveLength(0);
    expect(unsampled.result.traceparent).toMatch(/-00$/);
  });

  it('makes the process span the active one inside run(), as log lines read it', async () => {
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { context, trace } = await import('@opentelemetry/api');
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const lite = pusherLiteTracer();
      const standIn = { startSpan: () => undefined } as unknown as Tracer;
      installLiteTracer(lite, standIn, 'hookstream-pusher');
      const span = new ProcessSpan(standIn, RECORDS['no parent'] as ConsumedMessage, options);
      const seen = await span.run(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return trace.getActiveSpan()?.spanContext().traceId;
      });
      expect(seen).toBe(span.traceId);
      expect(seen).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      context.disable();
    }
  });

  it('leaves a record carrying baggage to the SDK tracer, which propagates it', () => {
    const lite = pusherLiteTracer();
    expect(
      lite.remoteParent({
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        baggage: 'a=1',
      }),
    ).toBeNull();
  });

  it('stands in for the SDK tracer it was installed for, and for the API proxy of its name', async () => {
    const { ProxyTracerProvider } = await import('@opentelemetry/api');
    const lite = pusherLiteTracer();
    const provider = new TracerProvider({});
    const sdkTracer = provider.getTracer('hookstream-pusher');
    installLiteTracer(lite, sdkTracer, 'hookstream-pusher');
    const proxies = new ProxyTracerProvider();
    expect(liteTracerFor(sdkTracer)).toBe(lite);
    expect(liteTracerFor(proxies.getTracer('hookstream-pusher'))).toBe(lite);
    expect(liteTracerFor(proxies.getTracer('other'))).toBeUndefined();
    expect(liteTracerFor(provider.getTracer('other'))).toBeUndefined();
    uninstallLiteTracer();
    expect(liteTracerFor(sdkTracer)).toBeUndefined();
  });
});

describe('the plain traceparent parser', () => {
  const id = '0af7651916cd43dd8448eb211c80319c';
  const span = 'b7ad6b7169203331';
  it('agrees with parseTraceParent on every header it accepts, and leaves the rest to it', () => {
    const headers = [
      `00-${id}-${span}-01`,
      `00-${id}-${span}-00`,
      `00-${id}-${span}-ff`,
      `00-${id}-${span}-1a`,
      `00-${'0'.repeat(32)}-${span}-01`,
      `00-${id}-${'0'.repeat(16)}-01`,
      `00-${id.toUpperCase()}-${span}-01`,
      `01-${id}-${span}-01`,
      `ff-${id}-${span}-01`,
      `00-${id}-${span}-01-extra`,
      ` 00-${id}-${span}-01`,
      `00-${id}-${span}-0g`,
      `00_${id}-${span}-01`,
      `00-${id.slice(1)}x-${span}-01`,
      '',
    ];
    for (const header of headers) {
      const plain = plainTraceparent(header);
      if (plain !== null) expect(plain, header).toEqual(parseTraceParent(header));
    }
    expect(plainTraceparent(`00-${id}-${span}-01`)).toEqual({ traceId: id, spanId: span, traceFlags: 1 });
    expect(plainTraceparent(`00-${'0'.repeat(32)}-${span}-01`)).toBeNull();
  });
});

describe('pooled ids', () => {
  it('are lower-case hex of the W3C lengths and do not repeat', () => {
    const ids = pooledIdGenerator();
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const traceId = ids.generateTraceId();
      const spanId = ids.generateSpanId();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      seen.add(traceId).add(spanId);
    }
    expect(seen.size).toBe(2000);
  });
});
