import type { RecordPosition } from '@hookstream/kafka';
import { EventSendSpan } from '@hookstream/telemetry';
import {
  type Context,
  context,
  isSpanContextValid,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { PreparedEvent } from './prepare-event.ts';
import { isTraceparent, newTraceparent } from './traceparent.ts';

/** One event's PRODUCER span and the traceparent its record carries (the span's own context). */
export interface PublishSpan {
  readonly span: EventSendSpan;
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
 * Starts the PRODUCER span of one event (telemetry's EventSendSpan: through the lite tracer when
 * tracing is on). Without a tracing SDK the API hands out a no-op span and injects nothing;
 * `fallback` (the caller's traceparent) or a fresh one then is the record's traceparent, so
 * consumers still find a valid context.
 */
export function startPublishSpan(
  tracer: Tracer,
  topic: string,
  event: PreparedEvent,
  parent: Context,
  fallback: string | undefined,
): PublishSpan {
  const span = new EventSendSpan(tracer, topic, event, parent);
  // A fresh traceparent only when nothing was injected: random ids are not free on the hot path.
  return { span, traceparent: span.traceparent ?? fallback ?? newTraceparent() };
}

/** Kafka acknowledged the record: where it landed goes on the span. */
export function endPublishSpan(span: EventSendSpan, position: RecordPosition): void {
  span.acknowledged(position.partition, position.offset);
}

/** The record was not acknowledged (or never encoded); the error code says why. */
export function failPublishSpan(span: EventSendSpan, err: unknown): void {
  span.failed(err);
}
