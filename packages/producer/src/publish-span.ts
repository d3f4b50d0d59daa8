import type { RecordPosition } from '@hookstream/kafka';
import { ATTR, injectTraceContext, MESSAGING_SYSTEM_KAFKA, traceKey } from '@hookstream/telemetry';
import {
  type Context,
  context,
  isSpanContextValid,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { PreparedEvent } from './prepare-event.ts';
import { isTraceparent, newTraceparent } from './traceparent.ts';

/** One event's PRODUCER span and the traceparent its record carries (the span's own context). */
export interface PublishSpan {
  readonly span: Span;
  readonly traceparent: string;
}

/**
 * The parent of an event's publish span: the active span when there is one (the ingress's HTTP
 * server span), else the caller's traceparent, so library users without an active context still
 * join the trace they name.
 */
export function publishParent(traceparent: string | undefined): Context {
  const active = context.active();
  const activeSpan = trace.getSpanContext(active);
  // Without an SDK the HTTP layer's span is a no-op with an invalid context: not a parent.
  if (activeSpan !== undefined && isSpanContextValid(activeSpan)) return active;
  if (traceparent === undefined || !isTraceparent(traceparent)) return active;
  const [, traceId = '', spanId = '', flags = '00'] = traceparent.split('-');
  return trace.setSpanContext(active, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/**
 * Starts the PRODUCER span of one event, named and tagged per the OpenTelemetry messaging
 * semantic conventions (`send <topic>`; Kafka's operation is `send`). Without a tracing SDK the
 * API hands out a no-op span and injects nothing; `fallback` (the caller's traceparent) or a fresh
 * one then is the record's traceparent, so consumers still find a valid context.
 */
export function startPublishSpan(
  tracer: Tracer,
  topic: string,
  event: PreparedEvent,
  parent: Context,
  fallback: string | undefined,
): PublishSpan {
  const span = tracer.startSpan(
    `send ${topic}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        [ATTR.messagingSystem]: MESSAGING_SYSTEM_KAFKA,
        [ATTR.messagingOperationType]: 'send',
        [ATTR.messagingOperationName]: 'send',
        [ATTR.messagingDestination]: topic,
        [ATTR.messagingMessageId]: event.id,
        [ATTR.eventType]: event.type,
      },
    },
    parent,
  );
  // The key's digest costs a hash per event: only for spans that are recorded.
  if (span.isRecording()) {
    span.setAttribute(ATTR.messagingKafkaKey, traceKey(event.key));
    if (event.tenant !== undefined) span.setAttribute(ATTR.tenant, event.tenant);
  }
  // No context to carry (no tracing SDK, no parent): nothing would be injected, so skip it.
  else if (!isSpanContextValid(span.spanContext()))
    return { span, traceparent: fallback ?? newTraceparent() };
  const headers: Record<string, string> = {};
  injectTraceContext(headers, trace.setSpan(parent, span));
  // A fresh traceparent only when nothing was injected: random ids are not free on the hot path.
  return { span, traceparent: headers.traceparent ?? fallback ?? newTraceparent() };
}

/** Kafka acknowledged the record: where it landed goes on the span. */
export function endPublishSpan(span: Span, position: RecordPosition): void {
  if (span.isRecording()) {
    span.setAttribute(ATTR.messagingPartition, String(position.partition));
    span.setAttribute(ATTR.messagingKafkaOffset, Number(position.offset));
  }
  span.end();
}

/** The record was not acknowledged (or never encoded); the error code says why. */
export function failPublishSpan(span: Span, err: unknown): void {
  if (span.isRecording()) {
    const code = (err as { code?: unknown }).code;
    span.setAttribute('error.type', typeof code === 'string' ? code : 'unknown');
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}
