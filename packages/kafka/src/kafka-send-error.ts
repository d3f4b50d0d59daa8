import { HookstreamError } from '@hookstream/contracts';
export type KafkaSendErrorCode = 'KAFKA_UNAVAILABLE' | 'KAFKA_REJECTED' | 'KAFKA_NOT_AUTHORIZED';

/**
 * A send that Kafka did not acknowledge. KAFKA_UNAVAILABLE: no broker answered in time, or it
 * answered with a retriable error: the records may or may not be stored, so sending again with
 * the same event ids is the fix (subscribers deduplicate). KAFKA_REJECTED: the broker refused
 * the records for good (too large, no such topic). KAFKA_NOT_AUTHORIZED: the principal lacks the
 * topic's WRITE ACL, or its login or certificate was refused; nothing is stored until that changes.
 */
export class KafkaSendError extends HookstreamError<KafkaSendErrorCode> {
  constructor(code: KafkaSendErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, code === 'KAFKA_UNAVAILABLE', options);
  }
}
