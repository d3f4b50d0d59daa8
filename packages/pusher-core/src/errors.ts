export type PusherErrorCode =
  | 'BAD_DEFINITION'
  | 'BAD_HEADER'
  | 'NO_SECRET'
  | 'NO_EVENTS_TOPIC'
  | 'LEDGER_LOST'
  | 'REGISTRATION_UNREADABLE';

/** A start-up problem; `canRetry` says whether starting again unchanged could succeed. */
export class PusherError extends Error {
  readonly code: PusherErrorCode;
  readonly canRetry: boolean;

  constructor(code: PusherErrorCode, message: string, canRetry: boolean) {
    super(message);
    this.name = 'PusherError';
    this.code = code;
    this.canRetry = canRetry;
  }
}
