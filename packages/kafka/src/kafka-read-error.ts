import { HookstreamError } from '@hookstream/contracts';
export type KafkaReadErrorCode = 'NO_SUCH_TOPIC' | 'READ_TIMEOUT' | 'KAFKA_UNAVAILABLE';

/**
 * A read that did not finish. NO_SUCH_TOPIC: nothing to read (not retriable until someone
 * creates it). READ_TIMEOUT / KAFKA_UNAVAILABLE: the broker was slow or away; reading again helps.
 */
export class KafkaReadError extends HookstreamError<KafkaReadErrorCode> {
  constructor(code: KafkaReadErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, code !== 'NO_SUCH_TOPIC', options);
  }
}
