export type DeliveryErrorCode =
  | 'BAD_SECRET'
  | 'INSECURE_DESTINATION'
  | 'PRIVATE_DESTINATION'
  | 'UNRESOLVABLE_DESTINATION';

/** A delivery set-up problem; `canRetry` says whether trying again later could help. */
export class DeliveryError extends Error {
  readonly code: DeliveryErrorCode;
  readonly canRetry: boolean;

  constructor(code: DeliveryErrorCode, message: string, canRetry: boolean) {
    super(message);
    this.name = 'DeliveryError';
    this.code = code;
    this.canRetry = canRetry;
  }
}
