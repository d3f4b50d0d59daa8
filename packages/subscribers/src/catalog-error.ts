import { HookstreamError } from '@hookstream/contracts';
export type CatalogErrorCode =
  | 'BAD_OPTION'
  | 'BAD_DEFINITION'
  | 'UNKNOWN_SUBSCRIBER'
  | 'NOT_MANAGED'
  | 'NO_SECRETS_KEY'
  | 'BAD_SECRETS_KEY'
  | 'WRONG_SECRETS_KEY'
  | 'SECRET_UNREADABLE'
  | 'NO_SECRET'
  | 'BAD_SECRET';

/** A catalog problem; `canRetry` says whether doing the same thing again unchanged could succeed. */
export class CatalogError extends HookstreamError<CatalogErrorCode> {}
