import { HookstreamError } from '@hookstream/contracts';
export type ReplayErrorCode =
  | 'BAD_OPTION'
  | 'NO_DLQ'
  | 'NO_RETRY_TIER'
  | 'EVENT_NOT_FOUND'
  | 'KAFKA_UNAVAILABLE';

/**
 * A dead-letter tool could not do what was asked. `canRetry`: running the same command again
 * unchanged could succeed (Kafka was away), as opposed to a wrong option or a missing topic.
 */
export class ReplayError extends HookstreamError<ReplayErrorCode> {
  constructor(code: ReplayErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, code === 'KAFKA_UNAVAILABLE', options);
  }
}
