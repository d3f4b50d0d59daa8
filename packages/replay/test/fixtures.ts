import { HS_HEADER } from '@hookstream/contracts';
import type { StoredRecord } from '../src/stored-record.ts';

export const ORIGINAL_HEADERS = {
  ce_id: 'evt_1',
  ce_type: 'shipment.updated',
  ce_source: '/ingress',
  ce_time: '2026-05-01T09:59:00.000Z',
  ce_specversion: '1.0',
  'content-type': 'application/avro',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
} as const;

/** A DLQ record as the pusher writes it, with every evidence header; `over` replaces or drops (undefined) headers. */
export function dlqRecord(
  over: {
    offset?: string | undefined;
    partition?: number;
    key?: string | null;
    value?: Buffer | null;
  } & {
    headers?: Record<string, string | undefined>;
  } = {},
): StoredRecord {
  const h = HS_HEADER;
  const headers: Record<string, string | undefined> = {
    ...ORIGINAL_HEADERS,
    [h.eventId]: 'evt_1',
    [h.subscriber]: 'billing',
    [h.attempts]: '3',
    [h.firstAttemptAt]: '2026-05-01T10:00:00.000Z',
    [h.lastAttemptAt]: '2026-05-01T10:00:11.000Z',
    [h.deadLetteredAt]: '2026-05-01T10:00:11.500Z',
    [h.deadLetterReason]: 'exhausted',
    [h.outcomeClass]: 'retryable',
    [h.outcome]: 'http_5xx',
    [h.status]: '503',
    [h.excerpt]: 'Service Unavailable',
    [h.policyVersion]: '2026-11-1',
    [h.originTopic]: 'events',
    [h.originPartition]: '4',
    [h.originOffset]: '1234',
    [h.sourceTopic]: 'hookstream.sub.billing.retry.2',
    [h.sourcePartition]: '1',
    [h.sourceOffset]: '17',
    ...over.headers,
  };
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
  return {
    topic: 'hookstream.sub.billing.dlq',
    partition: over.partition ?? 0,
    offset: over.offset ?? '7',
    key: over.key === undefined ? 'shp_1' : over.key,
    value: over.value === undefined ? Buffer.from([0, 0, 0, 0, 1, 2, 3, 255]) : over.value,
    headers: clean,
    timestampMs: Date.parse('2026-05-01T10:00:11.600Z'),
  };
}
