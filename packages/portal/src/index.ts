export { KafkaPortalLinks, portalLinksTopicSpec } from './kafka-link-log.ts';
export type { LinkLog, MintedLink } from './link-book.ts';
export { LINK_KEPT_AFTER_END_MS, PortalLinkBook } from './link-book.ts';
export { csrfTokenOf, linkToken, parseLinkToken, secretDigest } from './link-secret.ts';
export type { NoticeDecoder } from './notice-reader.ts';
export { KafkaNoticeReader } from './notice-reader.ts';
export { PortalAccess } from './portal-access.ts';
export type {
  MessageAttempt,
  MessageDetail,
  MessageEndpoint,
  MessageQuery,
  MessageState,
  MessageSummary,
  NoticeView,
  PayloadView,
  PortalBackend,
} from './portal-backend.ts';
export type { PortalServerOptions } from './portal-server.ts';
export { DEFAULT_PORTAL_RATE, PORTAL_PATH_PREFIX, PortalServer } from './portal-server.ts';
