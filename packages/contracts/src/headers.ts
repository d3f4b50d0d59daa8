/**
 * Kafka header names. The envelope travels as CloudEvents attributes in Kafka headers
 * (CloudEvents Kafka protocol binding, binary mode); the record value is the event data only.
 */
export const CE_HEADER = {
  id: 'ce_id',
  type: 'ce_type',
  source: 'ce_source',
  time: 'ce_time',
  specversion: 'ce_specversion',
  /** The CloudEvents extension attribute `tenant`: whose event it is (absent: no tenant). */
  tenant: 'ce_tenant',
} as const;

export const CE_SPECVERSION = '1.0';

/** Binary mode puts the data's media type in the Kafka content-type header. */
export const CONTENT_TYPE_HEADER = 'content-type';
/** Values are Avro in the schema registry's wire format (magic byte, schema id, body). */
export const AVRO_CONTENT_TYPE = 'application/avro';

/** W3C trace context, carried from the ingress through every topic an event passes. */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

/**
 * The HTTP headers of a delivery request (Standard Webhooks, plus the idempotency key), as the
 * delivery contract names them (docs/contract.md).
 */
export const WEBHOOK_HEADER = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
  idempotencyKey: 'idempotency-key',
} as const;
