/*
 * OTLP protobuf encoding of ended spans, one span at a time as it ends, producing the same bytes
 * as the SDK's ProtobufTraceSerializer (a test compares them). The SDK serializer walks every
 * batch twice (size estimate, then write) and encodes every attribute key of every span anew;
 * here the write is single-pass and attribute keys, which repeat on every span, are encoded
 * once. Encoding at span end also lets the span object die young instead of waiting in a
 * batch queue, which the profile showed as extra garbage-collection work.
 */
import type { Attributes, AttributeValue, HrTime, Link, SpanContext, SpanStatus } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { ProtoWriter } from './proto-writer.ts';

const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;
/** Bounds the key cache; hookstream's spans use a few dozen keys. */
const MAX_CACHED_KEYS = 1024;
/** Value changes after which a key's last KeyValue is no longer kept. */
const MAX_MISSES = 8;

/** One attribute key's encodings for one field number. */
interface Slot {
  /** KeyValue.key: tag, length, UTF-8. */
  readonly key: Uint8Array;
  /** The last value seen and its whole encoded KeyValue (field tag included). */
  value: unknown;
  encoded: Uint8Array | undefined;
  misses: number;
}

/** The spans of one resource and scope, each encoded by OtlpProtobufEncoder.span(). */
export interface EncodedSpans {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly spans: Uint8Array;
}

/** Encodes spans and the envelope around them (resource, scope) as OTLP protobuf. */
export class OtlpProtobufEncoder {
  /** Per attributes field number (span, event, link, resource, scope): key → its encodings. */
  readonly #byField = new Map<number, Map<string, Slot>>();
  readonly #scratch = new ProtoWriter(256);

  /**
   * An ExportTraceServiceRequest around spans encoded by span(): grouped by resource, then
   * scope, in the order given (the SDK's order: as first seen in the batch).
   */
  request(parts: readonly EncodedSpans[]): Uint8Array {
    const byResource = new Map<Resource, EncodedSpans[]>();
    for (const part of parts) {
      const list = byResource.get(part.resource);
      if (list) list.push(part);
      else byResource.set(part.resource, [part]);
    }
    const w = new ProtoWriter(parts.reduce((n, p) => n + p.spans.length, 1024));
    for (const [resource, scoped] of byResource) {
      w.tag(1, 2);
      const resourceSpans = w.start();
      this.resource(w, resource);
      for (const { scope, spans } of scoped) {
        w.tag(2, 2);
        const scopeSpans = w.start();
        this.scope(w, scope);
        w.raw(spans);
        if (scope.schemaUrl) {
          w.tag(3, 2);
          w.string(scope.schemaUrl);
        }
        w.finish(scopeSpans);
      }
      if (resource.schemaUrl) {
        w.tag(3, 2);
        w.string(resource.schemaUrl);
      }
      w.finish(resourceSpans);
    }
    return w.buffer.subarray(0, w.pos);
  }

  /** Appends one `Span` message, with its ScopeSpans.spans tag, to `w`. */
  span(w: ProtoWriter, span: ReadableSpan): void {
    w.tag(2, 2);
    const at = w.start2();
    const ctx = span.spanContext();
    spanContext(w, ctx);
    const parent = span.parentSpanContext;
    if (parent?.spanId) {
      w.tag(4, 2);
      w.hex(parent.spanId);
    }
    w.tag(5, 2);
    w.string(span.name);
    const kind = span.kind == null ? 0 : span.kind + 1;
    if (kind !== 0) {
      w.tag(6, 0);
      w.varint(kind);
    }
    w.tag(7, 1);
    hrTime(w, span.startTime);
    w.tag(8, 1);
    hrTime(w, span.endTime);
    if (span.attributes) this.attributes(w, span.attributes, 9);
    w.tag(10, 0);
    w.varint(span.droppedAttributesCount);
    for (const event of span.events) this.#event(w, event);
    w.tag(12, 0);
    w.varint(span.droppedEventsCount);
    for (const link of span.links) this.#link(w, link);
    w.tag(14, 0);
    w.varint(span.droppedLinksCount);
    w.tag(15, 2);
    status(w, span.status);
    // The SDK always writes these flags: the trace flags plus "is-remote is known" (0x100).
    w.tag(16, 5);
    w.fixed32((ctx.traceFlags & 255) | 0x100 | (parent?.isRemote ? 0x200 : 0));
    w.finish2(at);
  }

  /** `ResourceSpans.resource` (field 1). */
  resource(w: ProtoWriter, resource: Resource): void {
    w.tag(1, 2);
    const at = w.start();
    if (resource.attributes) this.attributes(w, resource.attributes, 1);
    w.tag(2, 0);
    w.varint(0);
    w.finish(at);
  }

  /** `ScopeSpans.scope` (field 1). */
  scope(
    w: ProtoWriter,
    scope: InstrumentationScope & { attributes?: Attributes; droppedAttributesCount?: number },
  ): void {
    w.tag(1, 2);
    const at = w.start();
    w.tag(1, 2);
    w.string(scope.name);
    if (scope.version) {
      w.tag(2, 2);
      w.string(scope.version);
    }
    if (scope.attributes) this.attributes(w, scope.attributes, 3);
    if (scope.droppedAttributesCount) {
      w.tag(4, 0);
      w.varint(scope.droppedAttributesCount);
    }
    w.finish(at);
  }

  attributes(w: ProtoWriter, attributes: Attributes, field: number): void {
    const slots = this.#slots(field);
    for (const key in attributes) {
      if (!Object.hasOwn(attributes, key)) continue;
      const value = attributes[key];
      let slot = slots.get(key);
      if (slot === undefined) {
        slot = { key: this.#keyField(key), value: undefined, encoded: undefined, misses: 0 };
        if (slots.size < MAX_CACHED_KEYS) slots.set(key, slot);
      }
      if (slot.encoded !== undefined && value === slot.value && value !== undefined) {
        w.raw(slot.encoded);
        continue;
      }
      const begin = w.pos;
      w.tag(field, 2);
      const at = w.start();
      w.raw(slot.key);
      w.tag(2, 2);
      const inner = w.start();
      anyValue(w, value);
      w.finish(inner);
      w.finish(at);
      // Remember a primitive value's whole KeyValue: most attributes repeat on every span of a
      // subscriber (system, topic, group, outcome, …). A key whose value keeps changing (event
      // id, offset) stops being remembered, so it costs no copy per span.
      if (slot.misses < MAX_MISSES && (typeof value === 'string' || typeof value === 'number')) {
        if (slot.encoded !== undefined) slot.misses++;
        slot.value = value;
        slot.encoded = slot.misses < MAX_MISSES ? w.buffer.slice(begin, w.pos) : undefined;
      }
    }
  }

  #slots(field: number): Map<string, Slot> {
    let slots = this.#byField.get(field);
    if (!slots) {
      slots = new Map();
      this.#byField.set(field, slots);
    }
    return slots;
  }

  /** The KeyValue.key field of `key`: tag, length, UTF-8. */
  #keyField(key: string): Uint8Array {
    const s = this.#scratch;
    s.reset();
    s.tag(1, 2);
    s.string(key);
    return s.buffer.slice(0, s.pos);
  }

  #event(w: ProtoWriter, event: TimedEvent): void {
    w.tag(11, 2);
    const at = w.start();
    w.tag(1, 1);
    hrTime(w, event.time);
    w.tag(2, 2);
    w.string(event.name);
    if (event.attributes) this.attributes(w, event.attributes, 3);
    w.tag(4, 0);
    w.varint(event.droppedAttributesCount || 0);
    w.finish(at);
  }

  #link(w: ProtoWriter, link: Link): void {
    w.tag(13, 2);
    const at = w.start();
    const ctx = link.context;
    spanContext(w, ctx);
    if (link.attributes) this.attributes(w, link.attributes, 4);
    w.tag(5, 0);
    w.varint(link.droppedAttributesCount || 0);
    w.tag(6, 5);
    w.fixed32((ctx.traceFlags & 255) | 0x100 | (ctx.isRemote ? 0x200 : 0));
    w.finish(at);
  }
}

/** trace_id, span_id and trace_state: fields 1–3 of both Span and Span.Link. */
function spanContext(w: ProtoWriter, ctx: SpanContext): void {
  w.tag(1, 2);
  w.hex(ctx.traceId);
  w.tag(2, 2);
  w.hex(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(3, 2);
    w.string(traceState);
  }
}

function status(w: ProtoWriter, s: SpanStatus): void {
  const at = w.start();
  if (s.message) {
    w.tag(2, 2);
    w.string(s.message);
  }
  w.tag(3, 0);
  w.varint(s.code);
  w.finish(at);
}

/** HrTime [seconds, nanoseconds] as fixed64 nanoseconds, exact beyond 2^53 (the SDK's split). */
function hrTime(w: ProtoWriter, time: HrTime): void {
  const seconds = time[0];
  const nanos = time[1];
  const lower = (seconds & 65535) * 1e9;
  const upper = ((seconds / 65536) >>> 0) * 1e9;
  const lowSum = (lower >>> 0) + ((((upper & 65535) * 65536) >>> 0) + nanos);
  const carry = Math.floor(lowSum / 4294967296);
  const high = (Math.floor(lower / 4294967296) + ((upper / 65536) >>> 0) + carry) >>> 0;
  w.fixed64(lowSum >>> 0, high);
}

function anyValue(w: ProtoWriter, value: AttributeValue | undefined | Record<string, unknown>): void {
  if (typeof value === 'string') {
    w.tag(1, 2);
    w.string(value);
  } else if (typeof value === 'boolean') {
    w.tag(2, 0);
    w.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64) {
      w.tag(3, 0);
      w.varint(value);
    } else {
      w.tag(4, 1);
      w.double(value);
    }
  } else if (value instanceof Uint8Array) {
    w.tag(7, 2);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, 2);
    const array = w.start();
    for (const item of value) {
      w.tag(1, 2);
      const at = w.start();
      anyValue(w, item ?? undefined);
      w.finish(at);
    }
    w.finish(array);
  } else if (typeof value === 'object' && value !== null) {
    // A map value (kvlist): not an API attribute type, but the SDK serializer writes it.
    const map = value as Record<string, unknown>;
    w.tag(6, 2);
    const list = w.start();
    for (const k in map) {
      if (!Object.hasOwn(map, k)) continue;
      w.tag(1, 2);
      const kv = w.start();
      w.tag(1, 2);
      w.string(k);
      w.tag(2, 2);
      const at = w.start();
      anyValue(w, map[k] as AttributeValue);
      w.finish(at);
      w.finish(kv);
    }
    w.finish(list);
  }
}
