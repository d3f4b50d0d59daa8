/*
 * Delivery spans without the SDK's span objects. The SDK tracer, per span, cleans its
 * attributes twice, asks a MultiSpanProcessor, counts the span in its metrics, validates every
 * setAttribute and reads the parent from an API Context; the pusher starts two or three spans per
 * delivery, and that bookkeeping was most of what tracing cost it. LiteTracerImpl starts spans
 * with the SDK tracer's own resource, scope, id generator, sampler and limits and ends them into
 * the same span processor, so what is exported is what the SDK tracer would have exported (a
 * test compares the OTLP bytes). Only configurations it reproduces exactly get one (see
 * liteTracerOptions in tracing-sdk.ts); the rest keep the SDK tracer.
 */

import { randomBytes } from 'node:crypto';
import {
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import {
  addHrTimes,
  cleanAttributes,
  hrTimeDuration,
  type InstrumentationScope,
  isAttributeValue,
  millisToHrTime,
  parseTraceParent,
  TraceState,
} from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { IdGenerator, ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';
import type { LiteTracer } from './lite-tracer.ts';

export interface LiteTracerOptions {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly processor: SpanProcessor;
  readonly idGenerator: IdGenerator;
  /**
   * The SDK's ParentBasedSampler with its default delegates (follow a parent's sampled flag):
   * its root sampler. A parent's decision is then taken here without building a Context.
   */
  readonly parentBasedRoot?: Sampler;
  /** Any other sampler, asked as the SDK tracer asks it. */
  readonly sampler?: Sampler;
  /** Spans sampled whatever the sampler says, by their kind and starting attributes (retries). */
  readonly alwaysSampled?: (kind: SpanKind, attributes: Attributes) => boolean;
  /** The SDK tracer's attributeCountLimit (value lengths must be unlimited). */
  readonly attributeCountLimit: number;
  /** Tests: start and end times in place of the SDK's clock. */
  readonly clock?: () => HrTime;
}

/** Shared: setStatus replaces a span's status, never changes it. */
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });
const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];
const SAMPLED: SamplingResult = { decision: SamplingDecision.RECORD_AND_SAMPLED };
const DROPPED: SamplingResult = { decision: SamplingDecision.NOT_RECORD };

export class LiteTracerImpl implements LiteTracer {
  readonly #o: LiteTracerOptions;

  constructor(options: LiteTracerOptions) {
    this.#o = options;
  }

  /**
   * The same tracer for another of the SDK provider's tracers (the ingress's): its spans carry
   * that tracer's scope; settings, processor and ids are shared, as the provider shares them.
   */
  withScope(scope: InstrumentationScope): LiteTracerImpl {
    return new LiteTracerImpl({ ...this.#o, scope });
  }

  remoteParent(headers: Readonly<Record<string, string>>): SpanContext | undefined | null {
    // Baggage would ride along in the SDK's Context and be injected again: the SDK path has it.
    if (headers.baggage !== undefined) return null;
    // As W3CTraceContextPropagator.extract, then the tracer's validity check.
    const header = headers.traceparent;
    if (!header) return undefined;
    const plain = plainTraceparent(header);
    const parent: SpanContext | null = plain ?? parseTraceParent(header);
    if (parent === null) return undefined;
    parent.isRemote = true;
    const state = headers.tracestate;
    if (state) parent.traceState = new TraceState(state);
    // A plain traceparent's ids are valid already.
    return plain !== null || isSpanContextValid(parent) ? parent : undefined;
  }

  startSpan(name: string, kind: SpanKind, attributes: Attributes, parent: SpanContext | undefined): Span {
    const o = this.#o;
    const spanId = o.idGenerator.generateSpanId();
    const traceId = parent === undefined ? o.idGenerator.generateTraceId() : parent.traceId;
    const result = this.#sample(parent, traceId, name, kind, attributes);
    const traceState = result.traceState ?? parent?.traceState;
    const sampled = result.decision === SamplingDecision.RECORD_AND_SAMPLED;
    // traceState present even when undefined, as the SDK tracer's span contexts have it.
    const context = {
      traceId,
      spanId,
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState,
    } as SpanContext;
    if (result.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(context);
    let attrs = result.attributes ? Object.assign(attributes, result.attributes) : attributes;
    let dropped = 0;
    let count = validCount(attrs);
    if (count < 0 || count > o.attributeCountLimit) {
      const cleaned = cleanAttributes(attrs, {
        attributeCountLimit: o.attributeCountLimit,
        attributeValueLengthLimit: Infinity,
      });
      attrs = cleaned.attributes ?? {};
      dropped = cleaned.droppedAttributesCount ?? 0;
      count = Object.keys(attrs).length;
    }
    return new LiteSpan(o, context, name, kind, parent, attrs, count, dropped);
  }

  traceHeaders(span: Span): Record<string, string> {
    const headers: Record<string, string> = {};
    const ctx = span.spanContext();
    if (!isSpanContextValid(ctx)) return headers;
    headers.traceparent = `00-${ctx.traceId}-${ctx.spanId}-0${Number(ctx.traceFlags || TraceFlags.NONE).toString(16)}`;
    if (ctx.traceState) headers.tracestate = ctx.traceState.serialize();
    return headers;
  }

  #sample(
    parent: SpanContext | undefined,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
  ): SamplingResult {
    const { parentBasedRoot, sampler, alwaysSampled } = this.#o;
    if (alwaysSampled?.(kind, attributes)) return SAMPLED;
    if (parentBasedRoot !== undefined) {
      if (parent !== undefined) return parent.traceFlags & TraceFlags.SAMPLED ? SAMPLED : DROPPED;
      return parentBasedRoot.shouldSample(ROOT_CONTEXT, traceId, name, kind, attributes, []);
    }
    if (sampler === undefined) return SAMPLED;
    const ctx = parent === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, parent);
    return sampler.shouldSample(ctx, traceId, name, kind, attributes, []);
  }
}

/**
 * A version-00 traceparent in its only valid form, parsed without parseTraceParent's regular
 * expression (a visible share of a delivery's tracing); null for anything else, which then goes
 * through parseTraceParent. Both agree on every header this accepts: 00, lower-case hex ids that
 * are not all zeros, two hex flag digits, nothing around them.
 */
export function plainTraceparent(header: string): SpanContext | null {
  if (
    header.length !== 55 ||
    header.charCodeAt(0) !== 48 ||
    header.charCodeAt(1) !== 48 ||
    header.charCodeAt(2) !== 45 ||
    header.charCodeAt(35) !== 45 ||
    header.charCodeAt(52) !== 45
  )
    return null;
  let traceZero = true;
  let spanZero = true;
  for (let i = 3; i < 55; i++) {
    if (i === 35 || i === 52) continue;
    const c = header.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return null;
    if (c !== 48) {
      if (i < 35) traceZero = false;
      else if (i < 52) spanZero = false;
    }
  }
  if (traceZero || spanZero) return null;
  return {
    traceId: header.slice(3, 35),
    spanId: header.slice(36, 52),
    traceFlags: Number.parseInt(header.slice(53, 55), 16),
  };
}

/**
 * Random trace and span ids, as lower-case hex never all zeros like the SDK's RandomIdGenerator,
 * sliced from a pool of random bytes hex-encoded at once rather than one Buffer write and
 * hex conversion per id.
 */
export function pooledIdGenerator(): IdGenerator {
  const POOL_BYTES = 4096;
  let pool = '';
  let at = 0;
  const take = (chars: number, zero: string, one: string): string => {
    if (at + chars > pool.length) {
      pool = randomBytes(POOL_BYTES).toString('hex');
      at = 0;
    }
    const id = pool.slice(at, at + chars);
    at += chars;
    // All zeros is invalid; comparing the whole id only when it starts with one is cheaper.
    return id.charCodeAt(0) === 48 && id === zero ? one : id;
  };
  const zero16 = '0'.repeat(16);
  const zero32 = '0'.repeat(32);
  return {
    generateTraceId: () => take(32, zero32, `${'0'.repeat(31)}1`),
    generateSpanId: () => take(16, zero16, `${'0'.repeat(15)}1`),
  };
}

/** How many attributes, all valid; -1 when one is not (cleanAttributes then drops it, as the SDK). */
function validCount(attributes: Attributes): number {
  let count = 0;
  for (const key in attributes) {
    if (!valid(attributes[key])) return -1;
    count++;
  }
  return count;
}

/** isAttributeValue, with the primitives every delivery attribute is checked first. */
function valid(value: unknown): value is AttributeValue {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  return value !== undefined && value !== null && isAttributeValue(value);
}

/** A recorded span: the API's Span for the code that writes it, ReadableSpan for the processor. */
class LiteSpan implements Span, ReadableSpan {
  readonly #o: LiteTracerOptions;
  readonly #context: SpanContext;
  readonly #startPerf: number;
  #count: number;
  name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  status: SpanStatus = UNSET;
  readonly attributes: Attributes;
  links: Link[] = NO_LINKS;
  events: TimedEvent[] = NO_EVENTS;
  ended = false;
  droppedAttributesCount: number;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;

  constructor(
    o: LiteTracerOptions,
    context: SpanContext,
    name: string,
    kind: SpanKind,
    parent: SpanContext | undefined,
    attributes: Attributes,
    count: number,
    dropped: number,
  ) {
    // The SDK's clock: the start in whole milliseconds, the end that plus the elapsed
    // performance time.
    const now = Date.now();
    this.#startPerf = performance.now();
    this.#o = o;
    this.#context = context;
    this.name = name;
    this.kind = kind;
    if (parent !== undefined) this.parentSpanContext = parent;
    this.startTime = o.clock ? o.clock() : millisToHrTime(now);
    this.attributes = attributes;
    this.#count = count;
    this.droppedAttributesCount = dropped;
    o.processor.onStart(this, ROOT_CONTEXT);
  }

  /** Worked out when asked: the OTLP encoders never ask. */
  get duration(): HrTime {
    return this.ended ? hrTimeDuration(this.startTime, this.endTime) : [-1, -1];
  }

  get resource(): Resource {
    return this.#o.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.#o.scope;
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.ended || key.length === 0 || !valid(value)) return this;
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.#count >= this.#o.attributeCountLimit) {
        this.droppedAttributesCount++;
        return this;
      }
      this.#count++;
    }
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      const value = attributes[key];
      if (Object.hasOwn(attributes, key) && value !== undefined) this.setAttribute(key, value);
    }
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const attributes =
      attributesOrTime !== undefined &&
      typeof attributesOrTime === 'object' &&
      !Array.isArray(attributesOrTime)
        ? (attributesOrTime as Attributes)
        : {};
    const event: TimedEvent = { name, time: this.#now(time ?? attributesOrTime), attributes };
    this.events = [...this.events, event];
    return this;
  }

  addLink(link: Link): this {
    if (!this.ended) this.links = [...this.links, link];
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    // As the SDK: UNSET changes nothing, OK is final, only an ERROR keeps its message.
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK)
      return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(): void {
    if (this.ended) return;
    let end = this.#o.clock
      ? this.#o.clock()
      : addHrTimes(this.startTime, millisToHrTime(performance.now() - this.#startPerf));
    const start = this.startTime;
    // As the SDK: an end before the start becomes the start.
    if (end[0] < start[0] || (end[0] === start[0] && end[1] < start[1])) end = [start[0], start[1]];
    this.endTime = end;
    this.ended = true;
    this.#o.processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const message = typeof exception === 'string' ? exception : exception.message;
    const type = typeof exception === 'string' ? undefined : exception.name;
    const attributes: Attributes = {};
    if (type) attributes['exception.type'] = type;
    if (message) attributes['exception.message'] = message;
    this.addEvent('exception', attributes, time);
  }

  #now(time: unknown): HrTime {
    if (Array.isArray(time)) return time as HrTime;
    if (typeof time === 'number') return millisToHrTime(time);
    if (time instanceof Date) return millisToHrTime(time.getTime());
    return addHrTimes(this.startTime, millisToHrTime(performance.now() - this.#startPerf));
  }
}
