import { HookstreamError } from '@hookstream/contracts';
export type PusherErrorCode =
  | 'BAD_DEFINITION'
  | 'BAD_HEADER'
  | 'NO_SECRET'
  | 'NO_EVENTS_TOPIC'
  | 'LEDGER_LOST'
  | 'REGISTRATION_UNREADABLE'
  /** A pull subscriber handed to a pusher: the API serves it. */
  | 'PULL_SUBSCRIBER';

/** A start-up problem; `canRetry` says whether starting again unchanged could succeed. */
export class PusherError extends HookstreamError<PusherErrorCode> {}
