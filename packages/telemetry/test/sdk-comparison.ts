import type { HrTime, Sampler, SpanContext } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  type IdGenerator,
  ParentBasedSampler,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { expect } from 'vitest';
import { LiteTracerImpl } from '../src/lite-spans.ts';
import { OtlpProtobufEncoder } from '../src/otlp-protobuf.ts';
import { ProtoWriter } from '../src/proto-writer.ts';

/*
 * What the lite tracer's byte-comparison suites share (lite-spans.test.ts for the pusher's spans,
 * ingress-spans.test.ts for the ingress's): the sampler settings, the ids, the SDK's clock
 * readings to replay, and the two encodings compared.
 */

/** One sampler setting as the SDK takes it (undefined: its default) and as a lite tracer does. */
export interface SamplerCase {
  readonly sdk?: Sampler;
  readonly lite: { readonly parentBasedRoot?: Sampler; readonly sampler?: Sampler };
}

/**
 * The sampler settings every lite-tracer test compares against the SDK's, made fresh per test
 * (a ratio sampler holds no state, but a shared one would hide a test that mutates it).
 */
export const SAMPLER_CASES: Readonly<Record<string, () => SamplerCase>> = {
  'the default sampler': () => ({ lite: { parentBasedRoot: new AlwaysOnSampler() } }),
  'a parent-based ratio sampler': () => {
    const root = new TraceIdRatioBasedSampler(0.5);
    return { sdk: new ParentBasedSampler({ root }), lite: { parentBasedRoot: root } };
  },
  'parent-based, never sampling new traces': () => {
    const root = new AlwaysOffSampler();
    return { sdk: new ParentBasedSampler({ root }), lite: { parentBasedRoot: root } };
  },
  'always on, not parent-based': () => ({
    sdk: new AlwaysOnSampler(),
    lite: { sampler: new AlwaysOnSampler() },
  }),
};

/** Ids 1, 2, 3, … in hex: the same sequence for both tracers. */
export function ids(): IdGenerator {
  let next = 1;
  return {
    generateTraceId: () => (next++).toString(16).padStart(32, 'a'),
    generateSpanId: () => (next++).toString(16).padStart(16, 'b'),
  };
}

/** Records every clock reading of the SDK's spans, in the order they were taken. */
export class ClockRecorder implements SpanProcessor {
  readonly times: HrTime[] = [];
  onStart(span: Span): void {
    this.times.push((span as unknown as ReadableSpan).startTime);
  }
  onEnd(span: ReadableSpan): void {
    this.times.push(span.endTime);
  }
  forceFlush = async () => undefined;
  shutdown = async () => undefined;
}

/** The SDK's OTLP protobuf request for `spans`, in hex. */
export function sdkBytes(spans: ReadableSpan[]): string {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('the SDK serialized nothing');
  return Buffer.from(bytes).toString('hex');
}

/** hookstream's own encoder, span by span as its processor does, a group per scope; '' for none. */
export function ownBytes(spans: ReadableSpan[]): string {
  if (spans.length === 0) return '';
  const encoder = new OtlpProtobufEncoder();
  const groups = new Map<string, { scope: InstrumentationScope; writer: ProtoWriter }>();
  for (const s of spans) {
    const scope = s.instrumentationScope;
    const key = `${scope.name}@${scope.version ?? ''}:${scope.schemaUrl ?? ''}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { scope, writer: new ProtoWriter(16) };
      groups.set(key, group);
    }
    encoder.span(group.writer, s);
  }
  const request = encoder.request(
    [...groups.values()].map((g) => ({
      resource: spans[0]?.resource as Resource,
      scope: g.scope,
      spans: g.writer.buffer.slice(0, g.writer.pos),
    })),
  );
  return Buffer.from(request).toString('hex');
}

/**
 * The lite run exported what the SDK did: each span's fields as an exporter reads them (the
 * resource by identity, a trace state as its header says it: the SDK parses one lazily, when
 * the propagator serializes it, which the lite path does not), the SDK's bytes for its spans,
 * and hookstream's own encoder's bytes for them.
 */
export function expectSameExport(lite: ReadableSpan[], sdk: ReadableSpan[], resource: Resource): void {
  const plain = (c: SpanContext | undefined) => c && { ...c, traceState: c.traceState?.serialize() };
  const fields = (spans: ReadableSpan[]) =>
    spans.map((x) => ({
      kind: x.kind,
      scope: x.instrumentationScope,
      context: plain(x.spanContext()),
      parent: plain(x.parentSpanContext),
      times: [x.startTime, x.endTime, x.duration],
      status: x.status,
      attributes: x.attributes,
      dropped: [x.droppedAttributesCount, x.droppedEventsCount, x.droppedLinksCount],
      ended: x.ended,
      resource: x.resource === resource,
    }));
  expect(fields(lite)).toEqual(fields(sdk));
  const expected = sdkBytes(sdk);
  expect(sdkBytes(lite)).toBe(expected);
  expect(ownBytes(lite)).toBe(expected);
}

/**
 * A lite tracer ending its spans into `processor`, with the test's ids, whose clock replays
 * `times` (the SDK's readings in the same run), so both runs' spans carry the same times;
 * `unread` is what it has not read yet.
 */
export function replayingLiteTracer(options: {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly processor: SpanProcessor;
  readonly times: readonly HrTime[];
  readonly sampling: { readonly parentBasedRoot?: Sampler; readonly sampler?: Sampler };
}): { readonly lite: LiteTracerImpl; readonly unread: HrTime[] } {
  const replay = [...options.times];
  const lite = new LiteTracerImpl({
    resource: options.resource,
    scope: options.scope,
    processor: options.processor,
    idGenerator: ids(),
    attributeCountLimit: 128,
    clock: () => {
      const next = replay.shift();
      if (!next) throw new Error('the lite tracer read the clock more often than the SDK');
      return next;
    },
    ...options.sampling,
  });
  return { lite, unread: replay };
}
