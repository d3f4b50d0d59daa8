import { HookstreamError } from '@hookstream/contracts';

export type ConsoleErrorCode =
  | 'BAD_CONFIG'
  | 'BAD_OPTION'
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'TOO_LARGE'
  | 'REPLAY_RUNNING';

/** A console problem; `canRetry` says whether the same request unchanged could succeed later. */
export class ConsoleError extends HookstreamError<ConsoleErrorCode> {}
