import {
  AVRO_CONTENT_TYPE,
  CE_HEADER,
  CE_SPECVERSION,
  CONTENT_TYPE_HEADER,
  TRACEPARENT_HEADER,
} from '@hookstream/contracts';
import type { PreparedEvent } from './prepare-event.ts';

/**
 * The envelope as CloudEvents Kafka binding (binary mode) headers, plus W3C traceparent;
 * `ce_tenant` only on an event that has a tenant.
 */
export function cloudEventHeaders(
  event: PreparedEvent,
  source: string,
  traceparent: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    [CE_HEADER.id]: event.id,
    [CE_HEADER.type]: event.type,
    [CE_HEADER.source]: source,
    [CE_HEADER.time]: event.time,
    [CE_HEADER.specversion]: CE_SPECVERSION,
    [CONTENT_TYPE_HEADER]: AVRO_CONTENT_TYPE,
    [TRACEPARENT_HEADER]: traceparent,
  };
  if (event.tenant !== undefined) headers[CE_HEADER.tenant] = event.tenant;
  return headers;
}
