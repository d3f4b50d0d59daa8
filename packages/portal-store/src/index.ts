export type { AttemptIndexerOptions, IndexerProgress } from './attempt-indexer.ts';
export { AttemptIndexer } from './attempt-indexer.ts';
export type { ApplyResult } from './contracts.ts';
export {
  AttemptRecord,
  EndpointAttempts,
  EndpointState,
  IndexPosition,
  ListMessagesQuery,
  MAX_ATTEMPTS_PER_ENDPOINT,
  MAX_LIST_LANES,
  MAX_LISTED_SUBSCRIBERS,
  MAX_LISTED_TYPES,
  MAX_PAGE_SIZE,
  MessageDetail,
  MessagePage,
  MessageState,
  MessageSummary,
  StoreStats,
} from './contracts.ts';
export type { PortalStoreErrorCode } from './errors.ts';
export { PortalStoreError } from './errors.ts';
export {
  DEFAULT_CACHE_BYTES,
  DEFAULT_RETENTION_MS,
  PortalStore,
  PortalStoreOptions,
} from './portal-store.ts';
export { endpointState, messageState } from './state.ts';
export { storeMessageIndex } from './store-message-index.ts';
