import { type Attributes, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { type InstrumentationScope, TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { OtlpProtobufEncoder } from '../src/otlp-protobuf.ts';
import { ProtoWriter } from '../src/proto-writer.ts';

const resource = resourceFromAttributes({
  'service.name': 'hookstream-pusher',
  'process.pid': 4242,
  'host.arch': 'amd64',
});
const otherResource = resourceFromAttributes({ 'service.name': 'other' }, { schemaUrl: 'https://x/1.0' });
const scope = { name: 'hookstream-pusher' };
const versioned = {
  name: '@hookstream/producer',
  version: '0.1.0',
  schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
};

function span(
  overrides: Partial<ReadableSpan> & { traceState?: TraceState; flags?: number } = {},
): ReadableSpan {
  const context = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: overrides.flags ?? TraceFlags.SAMPLED,
    ...(overrides.traceState ? { traceState: overrides.traceState } : {}),
  };
  return {
    name: 'process hookstream.events',
    kind: SpanKind.CONSUMER,
    spanContext: () => context,
    parentSpanContext: {
      traceId: context.traceId,
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
    },
    startTime: [1796031674, 123456789],
    endTime: [1796031674, 987654321],
    duration: [0, 864197532],
    ended: true,
    status: { code: SpanStatusCode.UNSET },
    attributes: {
      'messaging.system': 'kafka',
      'messaging.destination.partition.id': '3',
      'messaging.kafka.offset': 123456,
      'hookstream.attempt': 1,
      'hookstream.limiter.wait_ms': 0,
    },
    links: [],
    events: [],
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...overrides,
  };
}

/** The span without a parent. */
function root({ parentSpanContext: _, ...rest }: ReadableSpan): ReadableSpan {
  return rest;
}

/** Each span encoded as it would end, then the request around them, as the processor does. */
function encode(spans: readonly ReadableSpan[]): Uint8Array {
  const encoder = new OtlpProtobufEncoder();
  const groups: { resource: Resource; scope: InstrumentationScope; writer: ProtoWriter }[] = [];
  for (const s of spans) {
    let group = groups.find((g) => g.resource === s.resource && g.scope === s.instrumentationScope);
    if (!group) {
      group = { resource: s.resource, scope: s.instrumentationScope, writer: new ProtoWriter(16) };
      groups.push(group);
    }
    encoder.span(group.writer, s);
  }
  return encoder.request(
    groups.map((g) => ({
      resource: g.resource,
      scope: g.scope,
      spans: g.writer.buffer.slice(0, g.writer.pos),
    })),
  );
}

function sdk(spans: ReadableSpan[]): Uint8Array {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans);
  if (!bytes) throw new Error('the SDK serialized nothing');
  return bytes;
}

describe('OTLP protobuf encoding', () => {
  it('writes the bytes the SDK serializer writes for a delivery span', () => {
    const spans = [span()];
    expect(Buffer.from(encode(spans)).toString('hex')).toBe(Buffer.from(sdk(spans)).toString('hex'));
  });

  it('matches the SDK for every attribute type, events, links, status, trace state and grouping', () => {
    const attributes: Attributes = {
      text: 'plain',
      unicode: 'grüße ✓ 🚚',
      long: 'x'.repeat(300),
      yes: true,
      no: false,
      zero: 0,
      negative: -42,
      big: 2 ** 40 + 7,
      hugeNegative: -(2 ** 40),
      double: 3.25,
      nan: Number.NaN,
      strings: ['a', 'b', 'ü'],
      numbers: [1, 2.5, -3],
      mixed: [true, null, undefined, 'z'],
      empty: [],
      ключ: 'значение',
    };
    const spans = [
      span({ attributes }),
      span({
        name: 'POST',
        kind: SpanKind.CLIENT,
        status: { code: SpanStatusCode.ERROR, message: 'timeout' },
        traceState: new TraceState('vendor=value,other=1'),
        events: [
          { name: 'exception', time: [1796031674, 5], attributes: { 'exception.type': 'Error' } },
          { name: 'bare', time: [0, 0], droppedAttributesCount: 2 },
        ],
        links: [
          {
            context: {
              traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
              spanId: '00f067aa0ba902b7',
              traceFlags: 0,
              isRemote: true,
              traceState: new TraceState('a=b'),
            },
            attributes: { 'link.kind': 'previous' },
            droppedAttributesCount: 1,
          },
          {
            context: {
              traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
              spanId: 'aaaaaaaaaaaaaaaa',
              traceFlags: 1,
            },
          },
        ],
        droppedAttributesCount: 3,
        droppedEventsCount: 1,
        droppedLinksCount: 2,
      }),
      span({ instrumentationScope: versioned, kind: SpanKind.PRODUCER, flags: TraceFlags.NONE }),
      root(span({ resource: otherResource, kind: SpanKind.INTERNAL })),
      span({ name: 'send', startTime: [4_000_000_000, 999_999_999], endTime: [4_000_000_001, 0] }),
      // Under 128 bytes and over 16 KiB: the span length's two reserved bytes do not fit.
      root(span({ name: '', attributes: {} })),
      span({ attributes: { big: 'b'.repeat(20_000) } }),
    ];
    expect(Buffer.from(encode(spans)).toString('hex')).toBe(Buffer.from(sdk(spans)).toString('hex'));
  });

  it('matches the SDK for a thousand spans (lengths above one varint byte, buffer growth)', () => {
    const spans = Array.from({ length: 1000 }, (_, i) =>
      span({
        attributes: {
          'messaging.message.id': `event-${i}`,
          'messaging.kafka.offset': i * 7919,
          padding: 'p'.repeat(i % 200),
        },
      }),
    );
    expect(Buffer.from(encode(spans)).equals(Buffer.from(sdk(spans)))).toBe(true);
  });
});
