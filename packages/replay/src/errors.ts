import { HookstreamError } from '@hookstream/contracts';
export type ReplayErrorCode =
  | 'BAD_OPTION'
  | 'NO_DLQ'
  | 'NO_RETRY_TIER'
  | 'EVENT_NOT_FOUND'
  | 'NO_EVENTS_TOPIC'
  | 'KAFKA_UNAVAILABLE'
  | 'REPLAY_LEASE_HELD'
  | 'REPLAY_FENCED';

/**
 * A dead-letter tool could not do what was asked. `canRetry`: running the same command again
 * unchanged could succeed (Kafka was away; another replay of the subscriber holds the lease,
 * REPLAY_LEASE_HELD, and will finish or expire), as opposed to a wrong option or a missing
 * topic. REPLAY_FENCED: a newer replay took over this one; what is left is the newer one's.
 */
export class ReplayError extends HookstreamError<ReplayErrorCode> {
  constructor(code: ReplayErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, code === 'KAFKA_UNAVAILABLE' || code === 'REPLAY_LEASE_HELD', options);
  }
}
