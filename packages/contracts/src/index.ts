export { ATTEMPT_EXCERPT_MAX_CHARS, ATTEMPT_LOG_TOPIC, AttemptLogEntry, LedgerStep } from './attempt-log.ts';
export type { AttemptRecordEntries } from './attempt-log-records.ts';
export {
  ATTEMPT_BATCH_MAX_ENTRIES,
  AttemptLogBatch,
  attemptEntriesOf,
  attemptRecordMayHold,
} from './attempt-log-records.ts';
export {
  AUDIT_ACTIONS,
  AUDIT_RETENTION_MS,
  AUDIT_TOPIC,
  AuditAction,
  AuditActor,
  AuditDetail,
  AuditDigest,
  AuditRecord,
} from './audit.ts';
export { avroToTypeScript } from './avro-typescript.ts';
export { avroToZod } from './avro-zod.ts';
export {
  CATALOG_TOPIC,
  isRegistrationKey,
  registrationKey,
  SubscriberRegistration,
} from './catalog-registration.ts';
export type {
  ConnectionSettings,
  KafkaSasl,
  KafkaSettings,
  KafkaTls,
  RegistrySettings,
} from './connection-settings.ts';
export {
  ConnectionEnv,
  connectionSettingsOf,
  describeConnection,
  loadConnectionSettings,
  plaintextConnection,
  SaslMechanism,
} from './connection-settings.ts';
export type { HsHeaderName } from './delivery-headers.ts';
export {
  DeadLetterEvidence,
  DeadLetterReason,
  formatLocation,
  HS_HEADER,
  MAX_EXCERPT_CHARS,
  RecordLocation,
  RetryState,
} from './delivery-headers.ts';
export {
  CLIENT_KEY_ENV_PREFIX,
  envReference,
  HEADER_ENV_PREFIX,
  OAUTH_ENV_PREFIX,
  SECRET_ENV_PREFIX,
} from './env-references.ts';
export {
  EventEnvelope,
  EventId,
  EventTypeName,
  isEventId,
  isEventTime,
  isEventTypeName,
  isTenantId,
  MAX_TENANT_LENGTH,
  RESERVED_DATA_FIELDS,
  TenantId,
} from './envelope.ts';
export { describeErrorChain } from './error-chain.ts';
export type { EventSchema } from './event-catalog.ts';
export { loadEventCatalog, repositoryEventCatalog, SCHEMAS_DIR } from './event-catalog.ts';
export type { FilterInput, FilterVerdict } from './event-filter.ts';
export {
  EventFilter,
  evaluateFilter,
  FILTER_TOO_LARGE,
  filterNames,
  filterNeedsData,
  filterTooLarge,
  isDataPointer,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  resolvePointer,
} from './event-filter.ts';
export {
  EventSelection,
  eventTenantOf,
  eventTypeOf,
  type SelectionSource,
} from './event-selection.ts';
export type {
  EnrollmentUpdated,
  EventDataByType,
  KeyRevoked,
  ShipmentUpdated,
  SubscriberDisabled,
  SubscriberEnabled,
} from './event-types.ts';
export { renderEventTypes } from './event-types-source.ts';
export { definitionFilterProblems, filterProblems } from './filter-check.ts';
export {
  AVRO_CONTENT_TYPE,
  CE_HEADER,
  CE_SPECVERSION,
  CONTENT_TYPE_HEADER,
  TRACEPARENT_HEADER,
  TRACESTATE_HEADER,
  WEBHOOK_HEADER,
} from './headers.ts';
export { HookstreamError } from './hookstream-error.ts';
export type { HsFields } from './hs-header-codec.ts';
export {
  readDeadLetterEvidence,
  readDueAtMs,
  readHsHeaders,
  readRetryState,
  writeHsHeaders,
} from './hs-header-codec.ts';
export {
  INSTANCE_STATUS_TOPIC,
  InstanceStatus,
  InstanceSubscriberStatus,
  isInstanceStale,
  recordVersionsOf,
} from './instance-status.ts';
export type { AclGrant, AclOperation, ComponentRole } from './kafka-acls.ts';
export { componentAcls, TOOL_GROUP_PREFIX } from './kafka-acls.ts';
export type { LogFn } from './log.ts';
export { NameBinding, nameBindingKey, nameOfBindingKey } from './name-binding.ts';
export type { NoticeType } from './notices.ts';
export {
  isNoticeType,
  isOwnDeliveryNotice,
  NAMED_ONLY_NOTICE_TYPES,
  NOTICE_SCHEMA_NAMESPACE,
  NOTICE_TYPES,
  NOTICES_TOPIC_PREFIX,
  noticesTopicName,
  takesNotices,
} from './notices.ts';
export {
  isTenantErasureKey,
  MintedPortalLink,
  PORTAL_LINK_DEFAULT_SECONDS,
  PORTAL_LINK_MAX_SECONDS,
  PORTAL_LINK_MIN_SECONDS,
  PORTAL_LINKS_TOPIC,
  PortalLink,
  PortalLinkId,
  PortalLinkRequest,
  PortalLinkState,
  PortalLinkView,
  PortalScope,
  portalLinkState,
  portalLinkView,
  TenantErasure,
  tenantErasureKey,
} from './portal-link.ts';
export { MAX_BATCH_EVENTS, PublishBatchRequest, PublishRequest } from './publish-request.ts';
export { REDACTED, redactUrl, redactUrlText } from './redact-url.ts';
export {
  acceptsEventType,
  acceptsTenant,
  BatchSettings,
  BreakerSettings,
  ClientCertificate,
  CREDENTIAL_NAMES,
  type CredentialName,
  DEFAULT_BREAKER,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_MAX_HOLD_MS,
  DEFAULT_RETENTION_WARNING_MS,
  definitionRuleBroken,
  endpointOf,
  FORBIDDEN_HEADERS,
  HEADER_VALUE_PATTERN,
  HeaderValue,
  isPullDefinition,
  MAX_RETRY_DELAY_MS,
  ManagedHeaderValue,
  managedCredentialNames,
  managedHeaderNames,
  OAuth2Settings,
  PUSHER_OWNED_HEADERS,
  parseSubscriberDefinition,
  RateSettings,
  RetrySettings,
  SecretSource,
  StartPosition,
  SubscriberDefinition,
  sealOriginOf,
  tenantOf,
} from './subscriber.ts';
export type { SubscriberNames } from './subscriber-names.ts';
export { subscriberNames } from './subscriber-names.ts';
export {
  EncryptedSecret,
  fieldsNewerThan,
  ManagedSecretRequest,
  ManagedSecretState,
  parseSubscriberSpec,
  RecordSecret,
  recordVersionFor,
  SealedCredential,
  SealedHeaderValue,
  SUBSCRIBER_RECORD_VERSION,
  SUBSCRIBER_RECORD_VERSIONS,
  SubscriberRecord,
  SubscriberRecordVersion,
  SubscriberSecretSpec,
  SubscriberSpec,
  SubscriberState,
} from './subscriber-record.ts';
export {
  DEFAULT_EVENTS_TOPIC,
  dlqTopicName,
  EventsTopicName,
  REPLAY_TRANSACTIONAL_ID_PREFIX,
  replayLogTopicName,
  replayTransactionalId,
  retryTierOf,
  retryTopicName,
  SUBSCRIBER_GROUP_PREFIX,
  SubscriberName,
  subscriberGroupId,
  topicCollisionKey,
} from './topics.ts';
export { isTraceparent } from './trace-context.ts';
