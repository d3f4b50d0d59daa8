export type { ConsoleSession } from './console-auth.ts';
export { ConsoleAuth } from './console-auth.ts';
export type {
  CatalogueEntry,
  ConsoleBackend,
  ConsoleLedger,
  ConsoleReplayItem,
  ConsoleReplayRequest,
  ConsoleReplaySummary,
  SubscriberView,
} from './console-backend.ts';
export { MIN_TOKEN_LENGTH, parseConsoleTokens } from './console-config.ts';
export type { ConsoleErrorCode } from './console-error.ts';
export { ConsoleError } from './console-error.ts';
export type { ConsoleServerOptions } from './console-server.ts';
export { ConsoleServer, SESSION_COOKIE } from './console-server.ts';
export type { KafkaBackendContext, ReplayTools } from './kafka-backend.ts';
export { KafkaConsoleBackend } from './kafka-backend.ts';
export { publicDefinition } from './public-definition.ts';
export type { ReplayJob } from './replay-jobs.ts';
export { ReplayJobs } from './replay-jobs.ts';
export { RequestGuard } from './request-guard.ts';
export type { HtmlValue } from './safe-html.ts';
export { escapeHtml, html, SafeHtml } from './safe-html.ts';
