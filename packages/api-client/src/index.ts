export { ApiClient } from './api-client.ts';
export type { ApiErrorDetail } from './api-client-error.ts';
export { ApiClientError } from './api-client-error.ts';
export type { ApiAnswer, ApiCall } from './api-transport.ts';
export { ApiClientOptions, ApiTransport, retryAfterMsOf } from './api-transport.ts';
export type {
  AckAnswer,
  AckOptions,
  AuditList,
  AuditOptions,
  DeadLetterList,
  DeadLetterSelection,
  DeleteAnswer,
  DeleteOptions,
  EventTypeList,
  Job,
  LeaseAnswer,
  LeaseOptions,
  LedgerAnswer,
  ListOptions,
  MessageDetail,
  MessageGetOptions,
  MessageList,
  MessageOptions,
  MintedPortalLink,
  NackAnswer,
  NackOptions,
  PauseOptions,
  PortalLinkList,
  PortalLinkOptions,
  PortalLinkRequest,
  PutAnswer,
  PutOptions,
  ReplayOptions,
  ResendAnswer,
  RevokedPortalLink,
  RewindAnswer,
  RewindOptions,
  RotateOptions,
  SecretAnswer,
  SendExampleAnswer,
  StateAnswer,
  SubscriberDefinition,
  SubscriberItem,
  SubscriberList,
  SubscriberResource,
} from './api-types.ts';
export type { ApiOperation } from './operations.ts';
export { API_OPERATIONS } from './operations.ts';
