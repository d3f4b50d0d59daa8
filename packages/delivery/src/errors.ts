import { HookstreamError } from '@hookstream/contracts';
export type DeliveryErrorCode =
  | 'BAD_SECRET'
  | 'INSECURE_DESTINATION'
  | 'PRIVATE_DESTINATION'
  | 'UNRESOLVABLE_DESTINATION'
  /** HOOKSTREAM_EGRESS_PROXY is not an http://host:port proxy URL. */
  | 'BAD_EGRESS_PROXY';

/** A delivery set-up problem; `canRetry` says whether trying again later could help. */
export class DeliveryError extends HookstreamError<DeliveryErrorCode> {}
