import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { SpanContextOnly, traceparentOf } from './delivery-spans.ts';
import { type LiteTracer, liteTracerFor } from './lite-tracer.ts';
import { injectTraceContext } from './propagation.ts';
import { ATTR, MESSAGING_SYSTEM_KAFKA } from './semconv.ts';
import { traceKey } from './trace-key.ts';

/*
 * The ingress's spans: a SERVER span per publish request and a PRODUCER `send <topic>` span per
 * event, its child. Built like the pusher's delivery spans (delivery-spans.ts): through the lite
 * tracer when one stands in for the tracer (tracing-sdk.ts installs one for each name below),
 * else the tracer's own spans, which is also what a process without a tracing SDK gets (no-ops).
 * The SDK's span objects were 8 % of the ingress's CPU (bench/results/ratios-2026-12-04.md).
 */

/** The tracer of the ingress's request spans, and of the producer's publish spans. */
export const INGRESS_HTTP_TRACER_NAME = '@hookstream/ingress-http';
export const PRODUCER_TRACER_NAME = '@hookstream/producer';
/** The tracers tracing-sdk.ts gives a lite stand-in besides the pusher's. */
export const INGRESS_TRACER_NAMES: readonly string[] = [INGRESS_HTTP_TRACER_NAME, PRODUCER_TRACER_NAME];

/** A request's headers as node:http hands them over. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The SERVER span of one publish request, per the HTTP semantic conventions; its parent is the
 * caller's W3C trace context, if any. The request is handled in `context` (this span active), so
 * the publish spans are its children and log lines carry its trace id.
 */
export class RequestSpan {
  readonly #span: Span;
  readonly context: Context;

  /** `method`: the request's, or `_OTHER` for one outside the known set (the span is then `HTTP <path>`). */
  constructor(tracer: Tracer, method: string, path: string, headers: RequestHeaders) {
    const name = `${method === '_OTHER' ? 'HTTP' : method} ${path}`;
    const attributes: Attributes = {
      'http.request.method': method,
      'http.route': path,
      'url.path': path,
      'url.scheme': 'http',
    };
    const lite = liteTracerFor(tracer);
    const remote = lite === undefined ? null : requestParent(lite, headers);
    if (lite !== undefined && remote !== null) {
      this.#span = lite.startSpan(name, SpanKind.SERVER, attributes, remote);
      // What trace.setSpan(extracted, span) holds: the extracted context held only the parent.
      this.context = new SpanContextOnly(this.#span);
    } else {
      const parent = propagation.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      this.#span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
      this.context = trace.setSpan(parent, this.#span);
    }
  }

  /** The request was refused with `code`; a server error (5xx) marks the span as an error. */
  refused(code: string, serverError: boolean): void {
    this.#span.setAttribute(ATTR.errorType, code);
    if (serverError) this.#span.setStatus({ code: SpanStatusCode.ERROR });
  }

  /** The request is done; `status`: the answer's (res.statusCode). */
  end(status: number): void {
    this.#span.setAttribute(ATTR.httpStatus, status);
    this.#span.end();
  }
}

/**
 * The parent the request's headers name, as the W3C propagators extract it; null (the SDK's
 * path) for what the lite tracer leaves to them: baggage, and header values that are lists
 * (node:http joins repeated headers of these names into one string; a caller could pass lists).
 */
function requestParent(lite: LiteTracer, headers: RequestHeaders): SpanContext | undefined | null {
  const { traceparent, tracestate, baggage } = headers;
  if (typeof traceparent === 'object' || typeof tracestate === 'object' || typeof baggage === 'object')
    return null;
  // Only those three are read, and they are strings or absent.
  return lite.remoteParent(headers as Readonly<Record<string, string>>);
}

/** An event as its publish span names it. */
export interface PublishedEvent {
  readonly id: string;
  readonly type: string;
  readonly key: string;
  readonly tenant?: string | undefined;
}

/** The API's key of tracing suppression (the SDK's tracer starts no span under it). */
const SUPPRESS_TRACING_KEY = Symbol.for('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/**
 * The PRODUCER span of writing one event to `topic`, per the OpenTelemetry messaging semantic
 * conventions (`send <topic>`; Kafka's operation is `send`), a child of the span `parent` holds.
 */
export class EventSendSpan {
  readonly span: Span;
  /**
   * The W3C traceparent of this span, for the event's record, as the propagator injects it;
   * undefined when none would be (no tracing SDK and no parent, or no W3C propagator).
   */
  readonly traceparent: string | undefined;

  constructor(tracer: Tracer, topic: string, event: PublishedEvent, parent: Context) {
    const attributes: Attributes = {
      'messaging.system': MESSAGING_SYSTEM_KAFKA,
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.destination.name': topic,
      'messaging.message.id': event.id,
      'hookstream.event.type': event.type,
    };
    const lite = parent.getValue(SUPPRESS_TRACING_KEY) === true ? undefined : liteTracerFor(tracer);
    let span: Span;
    if (lite !== undefined) {
      const ctx = trace.getSpanContext(parent);
      span = lite.startSpan(
        `send ${topic}`,
        SpanKind.PRODUCER,
        attributes,
        ctx !== undefined && isSpanContextValid(ctx) ? ctx : undefined,
      );
    } else {
      span = tracer.startSpan(`send ${topic}`, { kind: SpanKind.PRODUCER, attributes }, parent);
    }
    this.span = span;
    // The key's digest costs a hash per event: only for spans that are recorded.
    if (span.isRecording()) {
      span.setAttribute(ATTR.messagingKafkaKey, traceKey(event.key));
      if (event.tenant !== undefined) span.setAttribute(ATTR.tenant, event.tenant);
    }
    // No context to carry (no tracing SDK, no parent): nothing would be injected, so skip it.
    // A lite span's ids are valid by construction (its parent's were checked above).
    else if (lite === undefined && !isSpanContextValid(span.spanContext())) {
      this.traceparent = undefined;
      return;
    }
    // The lite tracer is installed only with the W3C propagator: its traceparent, written
    // directly (traceHeaders would build an object and check the ids again, per event).
    if (lite !== undefined) {
      this.traceparent = traceparentOf(span);
      return;
    }
    const headers: Record<string, string> = {};
    injectTraceContext(headers, trace.setSpan(parent, span));
    this.traceparent = headers.traceparent;
  }

  /** Kafka acknowledged the record: where it landed goes on the span. */
  acknowledged(partition: number, offset: string): void {
    if (this.span.isRecording()) {
      this.span.setAttribute(ATTR.messagingPartition, String(partition));
      this.span.setAttribute(ATTR.messagingKafkaOffset, Number(offset));
    }
    this.span.end();
  }

  /** The record was not acknowledged (or never encoded); the error's code says why. */
  failed(err: unknown): void {
    if (this.span.isRecording()) {
      const code = (err as { code?: unknown }).code;
      this.span.setAttribute(ATTR.errorType, typeof code === 'string' ? code : 'unknown');
      this.span.setStatus({
        code: SpanStatusCode.ERROR,
        message: err instanceof Error ? err.message : String(err),
      });
    }
    this.span.end();
  }
}
