import { HookstreamError } from '@hookstream/contracts';
export type PublishErrorCode =
  /** The request around the data is wrong (bad id, key, occurred_at, unknown fields). */
  | 'INVALID_REQUEST'
  | 'UNKNOWN_TYPE'
  /**
   * A type hookstream itself emits (subscriber.disabled…): only its notice channel publishes
   * them, so nobody can announce a change that did not happen.
   */
  | 'RESERVED_TYPE'
  /** The data does not match the type's schema; details name the failing paths. */
  | 'INVALID_DATA'
  /** The data uses a name the delivery envelope adds (event_id, attempt, ...). */
  | 'RESERVED_FIELD'
  /** Kafka did not answer or said try again; the event may or may not be stored. */
  | 'KAFKA_UNAVAILABLE'
  /** Kafka did not acknowledge within the ack timeout; the event may still be stored. */
  | 'ACK_TIMEOUT'
  /** Too many records await Kafka's acks already (the queue is bounded); nothing was written. */
  | 'QUEUE_FULL'
  /** Kafka refused the record for good. */
  | 'KAFKA_REJECTED'
  | 'REGISTRY_UNAVAILABLE'
  /** The registry refused our credentials (401/403): REGISTRY_USERNAME / REGISTRY_PASSWORD. */
  | 'REGISTRY_UNAUTHORIZED'
  /** Kafka refused our login, certificate or ACLs; nothing is written until a setting changes. */
  | 'KAFKA_NOT_AUTHORIZED'
  /** The registry refused a schema (incompatible with the registered versions). */
  | 'SCHEMA_REJECTED'
  /** The id was used within the dedup window for a different event by the same producer. */
  | 'ID_CONFLICT'
  /** The producer was closed. */
  | 'CLOSED';

export interface PublishErrorDetail {
  readonly path: string;
  readonly message: string;
}

const RETRYABLE: ReadonlySet<PublishErrorCode> = new Set([
  'KAFKA_UNAVAILABLE',
  'ACK_TIMEOUT',
  'REGISTRY_UNAVAILABLE',
  'QUEUE_FULL',
]);

/** Why an event was not published. canRetry: the same call may succeed later, unchanged. */
export class PublishError extends HookstreamError<PublishErrorCode> {
  readonly details: readonly PublishErrorDetail[];

  constructor(
    code: PublishErrorCode,
    message: string,
    options: { details?: readonly PublishErrorDetail[]; cause?: unknown } = {},
  ) {
    super(code, message, RETRYABLE.has(code), options);
    this.details = options.details ?? [];
  }
}
