export type KafkaReadErrorCode = 'NO_SUCH_TOPIC' | 'READ_TIMEOUT' | 'KAFKA_UNAVAILABLE';

/**
 * A read that did not finish. NO_SUCH_TOPIC: nothing to read (not retriable until someone
 * creates it). READ_TIMEOUT / KAFKA_UNAVAILABLE: the broker was slow or away; reading again helps.
 */
export class KafkaReadError extends Error {
  readonly code: KafkaReadErrorCode;
  readonly canRetry: boolean;

  constructor(code: KafkaReadErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KafkaReadError';
    this.code = code;
    this.canRetry = code !== 'NO_SUCH_TOPIC';
  }
}
