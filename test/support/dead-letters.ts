import { HS_HEADER } from '@hookstream/contracts';

/** W3C traceparent with a fresh random trace id, as a record published by the ingress carries. */
export function randomTraceparent(): { traceparent: string; traceId: string } {
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const traceId = hex(32);
  return { traceparent: `00-${traceId}-${hex(16)}-01`, traceId };
}

export interface DeadLetterSpec {
  readonly eventId: string | null;
  readonly subscriber: string;
  readonly reason: 'terminal' | 'exhausted' | 'expired' | 'poison';
  readonly status?: number;
  readonly attempts: number;
  readonly origin: { readonly topic: string; readonly partition: number; readonly offset: string };
  readonly deadLetteredAt: string;
  readonly traceparent: string;
  readonly key: string;
  readonly value: Buffer;
}

/** A DLQ record exactly as the pusher writes it (docs/contract.md, "Dead letters are data"). */
export function deadLetterRecord(s: DeadLetterSpec): {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
} {
  const h = HS_HEADER;
  const headers: Record<string, string> = {
    ce_type: 'shipment.updated',
    ce_source: '/ingress',
    ce_time: '2026-05-01T09:59:00.000Z',
    ce_specversion: '1.0',
    'content-type': 'application/avro',
    traceparent: s.traceparent,
    [h.subscriber]: s.subscriber,
    [h.attempts]: String(s.attempts),
    [h.firstAttemptAt]: '2026-05-01T10:00:00.000Z',
    [h.lastAttemptAt]: s.deadLetteredAt,
    [h.deadLetteredAt]: s.deadLetteredAt,
    [h.deadLetterReason]: s.reason,
    [h.outcomeClass]: s.reason === 'terminal' ? 'terminal' : 'retryable',
    [h.outcome]: s.status === undefined ? 'timeout' : `http_${s.status}`,
    [h.excerpt]: 'nope',
    [h.policyVersion]: '2026-11-1',
    [h.originTopic]: s.origin.topic,
    [h.originPartition]: String(s.origin.partition),
    [h.originOffset]: s.origin.offset,
    [h.sourceTopic]: s.origin.topic,
    [h.sourcePartition]: String(s.origin.partition),
    [h.sourceOffset]: s.origin.offset,
  };
  if (s.eventId !== null) {
    headers.ce_id = s.eventId;
    headers[h.eventId] = s.eventId;
  }
  if (s.status !== undefined) headers[h.status] = String(s.status);
  return { key: s.key, value: s.value, headers };
}
