import { formatLocation } from '@hookstream/contracts';
import type { Replayable } from '@hookstream/replay';
import {
  ATTR,
  extractTraceContext,
  injectTraceContext,
  MESSAGING_SYSTEM_KAFKA,
  traceKey,
} from '@hookstream/telemetry';
import {
  isSpanContextValid,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

export interface ReplaySpan {
  readonly span: Span;
  /** The span's context for the tier record; undefined when tracing is off (the original stays). */
  readonly traceparent: string | undefined;
}

/**
 * The PRODUCER span of one replayed record, `send <tier topic>`: a child of the context the DLQ
 * record carries, so the replay joins the event's original trace, and linked to it as well (the
 * messaging conventions' way to name the message a send derives from).
 */
export function startReplaySpan(
  tracer: Tracer,
  topic: string,
  r: Replayable,
  replayId: string,
  key: string,
): ReplaySpan {
  const parent = extractTraceContext({ ...r.letter.headers });
  const origin = trace.getSpanContext(parent);
  const links: Link[] = origin !== undefined && isSpanContextValid(origin) ? [{ context: origin }] : [];
  const span = tracer.startSpan(
    `send ${topic}`,
    {
      kind: SpanKind.PRODUCER,
      links,
      attributes: {
        [ATTR.messagingSystem]: MESSAGING_SYSTEM_KAFKA,
        [ATTR.messagingOperationType]: 'send',
        [ATTR.messagingOperationName]: 'send',
        [ATTR.messagingDestination]: topic,
        [ATTR.messagingMessageId]: r.eventId,
        [ATTR.messagingKafkaKey]: traceKey(key),
        [ATTR.subscriber]: r.evidence.subscriber,
        [ATTR.replayOf]: formatLocation(r.letter.location),
        [ATTR.replayId]: replayId,
        ...(r.letter.eventType === null ? {} : { [ATTR.eventType]: r.letter.eventType }),
      },
    },
    parent,
  );
  const carrier: Record<string, string> = {};
  injectTraceContext(carrier, trace.setSpan(parent, span));
  return { span, traceparent: carrier.traceparent };
}

export function endReplaySpan(span: Span, partition: number, offset: string): void {
  if (span.isRecording()) {
    span.setAttribute(ATTR.messagingPartition, String(partition));
    span.setAttribute(ATTR.messagingKafkaOffset, Number(offset));
  }
  span.end();
}

export function failReplaySpan(span: Span, err: unknown): void {
  if (span.isRecording()) {
    const code = (err as { code?: unknown }).code;
    span.setAttribute('error.type', typeof code === 'string' ? code : 'unknown');
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}
