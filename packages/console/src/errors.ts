import { HookstreamError } from '@hookstream/contracts';

export type ConsoleErrorCode =
  | 'BAD_CONFIG'
  | 'BAD_OPTION'
  | 'BAD_REQUEST'
  | 'NOT_FOUND'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'TOO_LARGE'
  /** The state changed, but its notice could not be published. */
  | 'NOTICE_NOT_PUBLISHED';

/** A console problem; `canRetry` says whether the same request unchanged could succeed later. */
export class ConsoleError extends HookstreamError<ConsoleErrorCode> {}
