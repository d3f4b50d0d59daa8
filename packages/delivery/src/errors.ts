import { HookstreamError } from '@hookstream/contracts';
export type DeliveryErrorCode =
  | 'BAD_SECRET'
  | 'INSECURE_DESTINATION'
  | 'PRIVATE_DESTINATION'
  | 'UNRESOLVABLE_DESTINATION';

/** A delivery set-up problem; `canRetry` says whether trying again later could help. */
export class DeliveryError extends HookstreamError<DeliveryErrorCode> {}
