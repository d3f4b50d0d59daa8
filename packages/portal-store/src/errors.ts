import { HookstreamError } from '@hookstream/contracts';

export type PortalStoreErrorCode =
  /** A query's input is outside its contract (a limit, a list too long, a malformed value). */
  | 'BAD_QUERY'
  /** A cursor this store did not hand out, or one altered since. */
  | 'BAD_CURSOR'
  /** The SQLite file could not be opened or set up (a path, permissions, a full disk). */
  | 'STORE_UNAVAILABLE'
  /** Another process holds the store: each process keeps its own. */
  | 'STORE_IN_USE';

/** A portal store problem; `canRetry` says whether the same call could succeed later. */
export class PortalStoreError extends HookstreamError<PortalStoreErrorCode> {}
