import { redactUrl } from '@hookstream/contracts';
import {
  type Attributes,
  type Context,
  context,
  INVALID_SPANID,
  INVALID_TRACEID,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { DELIVERY_TRACER_NAME, type LiteTracer, liteTracerFor } from './lite-tracer.ts';
import { extractTraceContext, injectTraceContext } from './propagation.ts';
import { ATTR, MESSAGING_SYSTEM_KAFKA } from './semconv.ts';
import { traceKey } from './trace-key.ts';

/** A consumed record as the delivery spans need it (no Kafka client types). */
export interface ConsumedMessage {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ProcessSpanOptions {
  readonly consumerGroup: string;
  readonly subscriber: string;
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;
  /** The event's tenant (a valid ce_tenant); undefined for an event without one. */
  readonly tenant?: string | undefined;
  /** The retry tier the record was read from; undefined for the events topic. */
  readonly tier: number | undefined;
  /** The partition key in clear in spans (the subscriber's `keysInTraces`); else a digest. */
  readonly keyInClear?: boolean | undefined;
}

/** A sampled span's ids, as an exemplar names them. */
export interface SampledIds {
  readonly traceId: string;
  readonly spanId: string;
}

/** One outgoing HTTP attempt: its CLIENT span and the traceparent the request carries. */
export interface HttpSpan {
  /** The HTTP span's own context, for the request's `traceparent` header; undefined when off. */
  readonly traceparent: string | undefined;
  /** A response arrived (any status). */
  responded(status: number): void;
  /** No response: `timeout`, or a connection error code. */
  failed(errorType: string): void;
}

/** A hand-off to a retry tier or the DLQ: its PRODUCER span and the headers that carry it on. */
export interface SendSpan {
  /** traceparent/tracestate of the send span, to replace the record's own; empty when off. */
  readonly traceHeaders: Readonly<Record<string, string>>;
  /** Kafka acknowledged the write (`settled`), or it was abandoned before that. */
  end(result: 'settled' | 'abandoned'): void;
}

/**
 * The spans of one consumed record, per the OpenTelemetry messaging semantic conventions: a
 * CONSUMER `process <topic>` span, the HTTP CLIENT span of its attempt as a child, and a
 * PRODUCER `send <topic>` child when the record moves on to a retry tier or the DLQ. Without a
 * tracing SDK every span is a no-op and nothing is injected.
 */
export class ProcessSpan {
  readonly #tracer: Tracer;
  /** Set when the tracer has a lite stand-in: spans then skip the SDK's span objects and Contexts. */
  readonly #lite: LiteTracer | undefined;
  readonly #span: Span;
  /** The context with this span active; built on first use with the lite tracer. */
  #context: Context | undefined;
  readonly #eventId: string | undefined;
  readonly #key: string | null;
  readonly #keyInClear: boolean;
  readonly #subscriber: string;
  #attempt: number | undefined;

  constructor(tracer: Tracer, message: ConsumedMessage, options: ProcessSpanOptions) {
    this.#tracer = tracer;
    this.#eventId = options.eventId;
    // A digest costs a hash: only spans that are recorded carry the key (set just below).
    this.#key = message.key;
    this.#keyInClear = options.keyInClear === true;
    this.#subscriber = options.subscriber;
    // The parent is the context the record carries: the ingress's publish span for an events
    // topic record; for a tier record, the previous attempt's `send <tier>` span (the pusher
    // rewrites the tier record's traceparent to it). A parent that ended long before its child
    // began (the tier's delay) is how the messaging conventions model a message's creation
    // context, and it is what keeps every attempt in the event's ONE trace, findable by event
    // id: a new root with only a span link would split the event across traces, and Jaeger
    // shows the wait plainly as the gap between the send span and this one. The alternative, a
    // link to the previous attempt, adds nothing here because that attempt is the parent's
    // parent already.
    // Literal keys (the ATTR names), which V8 builds from one template instead of key by key.
    const attributes: Attributes = {
      'messaging.system': MESSAGING_SYSTEM_KAFKA,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': message.topic,
      'messaging.destination.partition.id': String(message.partition),
      'messaging.kafka.offset': Number(message.offset),
      'messaging.consumer.group.name': options.consumerGroup,
      'hookstream.subscriber': options.subscriber,
    };
    if (options.eventId !== undefined) attributes[ATTR.messagingMessageId] = options.eventId;
    if (options.eventType !== undefined) attributes[ATTR.eventType] = options.eventType;
    if (options.tenant !== undefined) attributes[ATTR.tenant] = options.tenant;
    if (options.tier !== undefined) attributes[ATTR.retryTier] = options.tier;
    const lite = liteTracerFor(tracer);
    const remote = lite?.remoteParent(message.headers);
    if (lite !== undefined && remote !== null) {
      this.#lite = lite;
      this.#span = lite.startSpan(`process ${message.topic}`, SpanKind.CONSUMER, attributes, remote);
    } else {
      const parent = extractTraceContext(message.headers);
      this.#span = tracer.startSpan(
        `process ${message.topic}`,
        { kind: SpanKind.CONSUMER, attributes },
        parent,
      );
      this.#context = trace.setSpan(parent, this.#span);
    }
    const key = this.#traceKey();
    if (key !== undefined) this.#span.setAttribute(ATTR.messagingKafkaKey, key);
  }

  get #ctx(): Context {
    this.#context ??= new SpanContextOnly(this.#span);
    return this.#context;
  }

  /** The partition key as spans carry it; undefined without a key or when nothing is recorded. */
  #traceKey(): string | undefined {
    if (this.#key === null || !this.#span.isRecording()) return undefined;
    return traceKey(this.#key, this.#keyInClear);
  }

  /** Runs fn with this span active, so log lines written meanwhile carry its trace id. */
  run<T>(fn: () => T): T {
    return context.with(this.#ctx, fn);
  }

  /**
   * The trace id for log lines; undefined when the span is not sampled. Read from the context,
   * not isRecording(): the record's end logs after its span has ended.
   */
  get traceId(): string | undefined {
    const ctx = this.#span.spanContext();
    const sampled = (ctx.traceFlags & TraceFlags.SAMPLED) !== 0;
    // The lite tracer's ids are valid by construction; its parent was checked when read.
    return sampled && (this.#lite !== undefined || isSpanContextValid(ctx)) ? ctx.traceId : undefined;
  }

  /**
   * This span's trace and span ids when it is sampled, else undefined: what a metric's exemplar
   * points at (an exemplar must name a trace that exists).
   */
  get sampledIds(): SampledIds | undefined {
    const traceId = this.traceId;
    return traceId === undefined ? undefined : { traceId, spanId: this.#span.spanContext().spanId };
  }

  set attempt(attempt: number) {
    this.#attempt = attempt;
    this.#span.setAttribute(ATTR.attempt, attempt);
  }

  /** The number of the attempt under way or last made (1 for a first attempt); undefined before one. */
  get attemptNumber(): number | undefined {
    return this.#attempt;
  }

  /** Time spent waiting for the destination's limiter before the request went out. */
  limiterWait(ms: number): void {
    this.#span.setAttribute(ATTR.limiterWaitMs, Math.round(ms));
  }

  /** Starts the attempt's HTTP CLIENT span, a child of this one; `extra`: e.g. the breaker's state. */
  http(method: string, target: HttpTarget, extra: Attributes = {}): HttpSpan {
    // A copy of the method's template for this target (a plain clone is V8's fast path; two
    // spreads after a property were a runtime call each, per attempt), then `extra`.
    const attributes: Attributes = { ...requestTemplate(target, method) };
    for (const key in extra) if (Object.hasOwn(extra, key)) attributes[key] = extra[key];
    if (this.#attempt !== undefined && this.#attempt > 1)
      attributes[ATTR.httpResendCount] = this.#attempt - 1;
    const span =
      this.#lite !== undefined
        ? this.#lite.startSpan(method, SpanKind.CLIENT, attributes, this.#span.spanContext())
        : this.#tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes }, this.#ctx);
    return {
      traceparent: traceparentOf(span),
      responded: (status) => {
        span.setAttribute(ATTR.httpStatus, status);
        // A client span is an error from 4xx on (HTTP semantic conventions).
        if (status >= 400) {
          span.setAttribute(ATTR.errorType, String(status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      },
      failed: (errorType) => {
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
        span.end();
      },
    };
  }

  /**
   * Starts the PRODUCER span of handing the record to `topic` (a retry tier or the DLQ). The
   * record written there carries this span's context, so the next hop (or a replay) joins the
   * event's trace as its child. A send to the DLQ (its attributes name the dead letter's reason)
   * is recorded even when this span is not: the sampler keeps every dead-letter write
   * (retry-sampling.ts), so a dead letter decided on an unsampled first attempt has its trace.
   */
  send(topic: string, attributes: Attributes = {}): SendSpan {
    const all: Attributes = {
      [ATTR.messagingSystem]: MESSAGING_SYSTEM_KAFKA,
      [ATTR.messagingOperationType]: 'send',
      [ATTR.messagingOperationName]: 'send',
      [ATTR.messagingDestination]: topic,
      [ATTR.subscriber]: this.#subscriber,
      ...attributes,
    };
    if (this.#eventId !== undefined) all[ATTR.messagingMessageId] = this.#eventId;
    if (this.#attempt !== undefined) all[ATTR.attempt] = this.#attempt;
    let span: Span;
    let traceHeaders: Record<string, string>;
    if (this.#lite !== undefined) {
      span = this.#lite.startSpan(`send ${topic}`, SpanKind.PRODUCER, all, this.#span.spanContext());
      traceHeaders = this.#lite.traceHeaders(span);
    } else {
      span = this.#tracer.startSpan(`send ${topic}`, { kind: SpanKind.PRODUCER, attributes: all }, this.#ctx);
      traceHeaders = {};
      injectTraceContext(traceHeaders, trace.setSpan(this.#ctx, span));
    }
    // Once started: the send span's own sampling decides, not this span's (a digest is a hash).
    if (this.#key !== null && span.isRecording())
      span.setAttribute(ATTR.messagingKafkaKey, traceKey(this.#key, this.#keyInClear));
    return {
      traceHeaders,
      end: (result) => {
        if (result !== 'settled') span.setStatus({ code: SpanStatusCode.ERROR, message: result });
        span.end();
      },
    };
  }

  /**
   * Ends the span with what became of the record (`delivered`, `retry-scheduled`,
   * `dead-lettered`, `filtered`, `abandoned`) and, after an attempt, its outcome reason.
   */
  end(outcome: string, reason?: string, error = false): void {
    this.#span.setAttribute(ATTR.outcome, outcome);
    if (reason !== undefined) this.#span.setAttribute(ATTR.outcomeReason, reason);
    if (error) this.#span.setStatus({ code: SpanStatusCode.ERROR, message: reason ?? outcome });
    this.#span.end();
  }
}

/** The API's key of the active span (`trace.setSpan` stores it under this key). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * A Context holding only a span, as `trace.setSpan(ROOT_CONTEXT, span)` would, without copying a
 * Map per record; setting anything else goes back to the API's own contexts.
 */
export class SpanContextOnly implements Context {
  readonly #span: Span;

  constructor(span: Span) {
    this.#span = span;
  }

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.#span : undefined;
  }

  setValue(key: symbol, value: unknown): Context {
    return trace.setSpan(ROOT_CONTEXT, this.#span).setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return key === SPAN_KEY ? ROOT_CONTEXT : this;
  }
}

/**
 * The W3C traceparent of `span`, as the W3C propagator writes it, or undefined for the API's
 * invalid context (tracing off). Written directly because the request needs only this header:
 * going through propagation.inject costs a context and a carrier object per attempt.
 */
export function traceparentOf(span: Span): string | undefined {
  const ctx = span.spanContext();
  // The SDK's ids and extracted parents are well-formed; only the API's invalid (all-zero)
  // context, what a tracer without an SDK hands out, is left to rule out.
  if (ctx.traceId === INVALID_TRACEID || ctx.spanId === INVALID_SPANID) return undefined;
  return `00-${ctx.traceId}-${ctx.spanId}-0${(ctx.traceFlags || 0).toString(16)}`;
}

/** Per target and method: the method, then the target's attributes, in the order spans list them. */
const templates = new WeakMap<HttpTarget, Map<string, Attributes>>();

function requestTemplate(target: HttpTarget, method: string): Attributes {
  // httpTarget's targets carry their POST template: a property read instead of two lookups.
  const own = (target as { post?: Attributes }).post;
  if (method === 'POST' && own !== undefined) return own;
  let byMethod = templates.get(target);
  if (byMethod === undefined) {
    byMethod = new Map();
    templates.set(target, byMethod);
  }
  let template = byMethod.get(method);
  if (template === undefined) {
    template = { 'http.request.method': method, ...target.attributes };
    byMethod.set(method, template);
  }
  return template;
}

/** An endpoint's span attributes, worked out once rather than per attempt. */
export interface HttpTarget {
  readonly attributes: Readonly<Attributes>;
}

export function httpTarget(url: URL): HttpTarget & { readonly post: Attributes } {
  const attributes: Attributes = {
    [ATTR.urlFull]: redactUrl(url),
    [ATTR.serverAddress]: url.hostname,
    [ATTR.serverPort]: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
  };
  return { attributes, post: { [ATTR.httpMethod]: 'POST', ...attributes } };
}

/** The tracer the delivery spans come from; a no-op until a tracing SDK is started. */
export function deliveryTracer(): Tracer {
  return trace.getTracer(DELIVERY_TRACER_NAME);
}
