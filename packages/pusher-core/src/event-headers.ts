import {
  CE_HEADER,
  isEventId,
  isEventTime,
  isEventTypeName,
  isTenantId,
  isTraceparent,
  TRACEPARENT_HEADER,
} from '@hookstream/contracts';

/**
 * A consumed record's CloudEvents headers as far as they can be trusted. Anyone who can write
 * to the topic can write any header, so a value is only passed on (to spans, logs, DLQ evidence,
 * the request) once it matches the contract; `problem` names the first header that does not,
 * which makes the record poison.
 */
export interface EventHeaders {
  readonly eventId: string | undefined;
  readonly type: string | undefined;
  /** `ce_tenant` when it is a tenant name; undefined when absent (no tenant) or not one. */
  readonly tenant: string | undefined;
  readonly problem: string | null;
}

export function readEventHeaders(headers: Readonly<Record<string, string>>): EventHeaders {
  const id = headers[CE_HEADER.id];
  const type = headers[CE_HEADER.type];
  const time = headers[CE_HEADER.time];
  const traceparent = headers[TRACEPARENT_HEADER];
  const tenantHeader = headers[CE_HEADER.tenant];
  const tenant = tenantHeader !== undefined && isTenantId(tenantHeader) ? tenantHeader : undefined;
  const eventId = id !== undefined && isEventId(id) ? id : undefined;
  const validType = type !== undefined && isEventTypeName(type) ? type : undefined;
  const problem =
    type === undefined
      ? `missing ${CE_HEADER.type} header`
      : validType === undefined
        ? `${CE_HEADER.type} header is not an event type name (${describe(type)})`
        : id === undefined
          ? `missing ${CE_HEADER.id} header`
          : eventId === undefined
            ? `${CE_HEADER.id} header is not an event id (${describe(id)})`
            : traceparent !== undefined && !isTraceparent(traceparent)
              ? `${TRACEPARENT_HEADER} header is not a W3C traceparent (${describe(traceparent)})`
              : time !== undefined && !isEventTime(time)
                ? `${CE_HEADER.time} header is not an RFC 3339 time (${describe(time)})`
                : tenantHeader !== undefined && tenant === undefined
                  ? // Delivered as is it would tell an endpoint a tenant the contract cannot name.
                    `${CE_HEADER.tenant} header is not a tenant name (${describe(tenantHeader)})`
                  : null;
  return { eventId, type: validType, tenant, problem };
}

/** A bad value as evidence: its length and a short, printable start (it may be 10 KB of anything). */
function describe(value: string): string {
  const start = JSON.stringify(value.slice(0, 40));
  return value.length > 40 ? `${value.length} chars, starting ${start}` : start;
}
